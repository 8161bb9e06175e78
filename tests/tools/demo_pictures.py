"""Draw the demo library's pictures into resources/demo/media/ (run once; the files are kept).

Each picture is saved under the site and path its item names
(``media.example.com/images/worm-compost.jpg``), which is where the emulator serves it from.

    QT_QPA_PLATFORM=offscreen python tests/tools/demo_pictures.py
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QGuiApplication,
    QImage,
    QLinearGradient,
    QPainter,
    QPainterPath,
    QPen,
)

MEDIA = Path(__file__).resolve().parents[2] / "resources" / "demo" / "media"
Drawing = Callable[[QPainter, int, int], None]


def _text(painter: QPainter, rect: QRectF, text: str, size: int, colour: str, bold: bool) -> None:
    """Text centred in ``rect``."""
    font = QFont("Sans Serif", size)
    font.setBold(bold)
    painter.setFont(font)
    painter.setPen(QColor(colour))
    painter.drawText(rect, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, text)


def _worms(painter: QPainter, width: int, height: int) -> None:
    """Dark crumbly compost in a tub, a few red worms."""
    painter.fillRect(0, 0, width, height, QColor("#5b6770"))
    painter.setBrush(QColor("#d9dde0"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(QRectF(30, 60, width - 60, height - 90), 18, 18)
    painter.setBrush(QColor("#3a2a1c"))
    painter.drawRoundedRect(QRectF(50, 80, width - 100, height - 130), 12, 12)
    rng = random.Random(7)
    for _ in range(900):
        x, y = rng.uniform(55, width - 55), rng.uniform(85, height - 55)
        painter.setBrush(QColor.fromHsv(25, 120, rng.randint(25, 80)))
        painter.drawEllipse(QPointF(x, y), rng.uniform(1.5, 4.5), rng.uniform(1.5, 4.5))
    worm = QPen(QColor("#b8434e"), 7)
    worm.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(worm)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    for start_x, start_y in ((160, 180), (330, 250), (470, 160), (250, 320)):
        path = QPainterPath(QPointF(start_x, start_y))
        for step in range(1, 6):
            path.lineTo(start_x + step * 14, start_y + math.sin(step * 1.3) * 12)
        painter.drawPath(path)


def _barrel(painter: QPainter, width: int, height: int) -> None:
    """A rain barrel under a downpipe on a rooftop, blue sky."""
    sky = QLinearGradient(0, 0, 0, height)
    sky.setColorAt(0, QColor("#7fb2e5"))
    sky.setColorAt(1, QColor("#d8ebf7"))
    painter.fillRect(0, 0, width, height, QBrush(sky))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#9a9c98"))
    painter.drawRect(0, int(height * 0.72), width, height)
    painter.setBrush(QColor("#7a4e3a"))
    painter.drawRect(40, 60, 260, int(height * 0.72) - 60)
    painter.setBrush(QColor("#8f9497"))
    painter.drawRect(280, 70, 16, 190)
    painter.drawRect(280, 250, 110, 16)
    painter.setBrush(QColor("#2f6d4f"))
    painter.drawRoundedRect(QRectF(350, 260, 140, int(height * 0.72) - 230), 20, 20)
    painter.setBrush(QColor("#3d8a63"))
    painter.drawEllipse(QRectF(350, 250, 140, 30))
    rng = random.Random(3)
    painter.setBrush(QColor("#4e9a45"))
    for x in range(520, width - 20, 34):
        painter.drawEllipse(QPointF(x, height * 0.7 - rng.uniform(0, 20)), 22, 26)


def _chart(title: str, lines: list[list[float]], colours: list[str]) -> Drawing:
    """A line chart of ``lines`` (values 0-1) under ``title``."""

    def draw(painter: QPainter, width: int, height: int) -> None:
        painter.fillRect(0, 0, width, height, QColor("#ffffff"))
        _text(painter, QRectF(0, 10, width, 40), title, 16, "#222222", True)
        left, top, right, bottom = 70, 70, width - 30, height - 50
        painter.setPen(QPen(QColor("#888888"), 2))
        painter.drawLine(left, bottom, right, bottom)
        painter.drawLine(left, top, left, bottom)
        for values, colour in zip(lines, colours, strict=True):
            painter.setPen(QPen(QColor(colour), 4))
            path = QPainterPath()
            for index, value in enumerate(values):
                point = QPointF(
                    left + (right - left) * index / (len(values) - 1),
                    bottom - (bottom - top) * value,
                )
                if index == 0:
                    path.moveTo(point)
                else:
                    path.lineTo(point)
            painter.drawPath(path)

    return draw


def _forgetting() -> list[list[float]]:
    """Retention over 30 days, once without reviews and once with reviews on days 1, 3, 7, 14."""
    single = [0.2 + 0.8 * math.exp(-day / 3) for day in range(31)]
    reviewed: list[float] = []
    last, strength = 0, 3.0
    for day in range(31):
        if day in (1, 3, 7, 14):
            last, strength = day, strength * 2.2
        reviewed.append(0.35 + 0.65 * math.exp(-(day - last) / strength))
    return [single, reviewed]


def _boxes(
    title: str, boxes: list[tuple[str, float, float, str]], arrows: list[tuple[int, int]]
) -> Drawing:
    """A diagram: labelled boxes (centre given as fractions of the picture) joined by arrows."""

    def draw(painter: QPainter, width: int, height: int) -> None:
        painter.fillRect(0, 0, width, height, QColor("#fbfaf6"))
        _text(painter, QRectF(0, 8, width, 36), title, 15, "#222222", True)
        centres = [QPointF(x * width, y * height) for _, x, y, _ in boxes]
        painter.setPen(QPen(QColor("#555555"), 3))
        for start, end in arrows:
            painter.drawLine(centres[start], centres[end])
            direction = centres[end] - centres[start]
            length = math.hypot(direction.x(), direction.y()) or 1
            tip = centres[end] - direction * (62 / length)
            painter.setBrush(QColor("#555555"))
            painter.drawEllipse(tip, 6, 6)
        for (label, _, _, colour), centre in zip(boxes, centres, strict=True):
            rect = QRectF(centre.x() - 80, centre.y() - 28, 160, 56)
            painter.setPen(QPen(QColor("#333333"), 2))
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(rect, 10, 10)
            _text(painter, rect, label, 13, "#111111", False)

    return draw


def _bars(title: str, bars: list[tuple[str, float]]) -> Drawing:
    """A bar chart."""

    def draw(painter: QPainter, width: int, height: int) -> None:
        painter.fillRect(0, 0, width, height, QColor("#ffffff"))
        _text(painter, QRectF(0, 10, width, 40), title, 16, "#222222", True)
        slot = (width - 120) / len(bars)
        for index, (label, value) in enumerate(bars):
            x = 60 + index * slot + slot * 0.2
            bar_height = (height - 140) * value
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor("#4d7cc7" if index else "#b0b7c3"))
            painter.drawRect(QRectF(x, height - 60 - bar_height, slot * 0.6, bar_height))
            _text(
                painter, QRectF(x - 20, height - 55, slot * 0.6 + 40, 40), label, 12, "#333", False
            )

    return draw


def _tomatoes(vines: bool) -> Drawing:
    """Cherry tomatoes in a bowl, or on the vine."""

    def draw(painter: QPainter, width: int, height: int) -> None:
        rng = random.Random(11 if vines else 5)
        painter.fillRect(0, 0, width, height, QColor("#cfe3c4" if vines else "#e9dfcf"))
        painter.setPen(Qt.PenStyle.NoPen)
        if vines:
            painter.setPen(QPen(QColor("#3f7a34"), 9))
            for x in range(60, width, 150):
                painter.drawLine(x, 0, x + rng.randint(-40, 40), height)
            painter.setPen(Qt.PenStyle.NoPen)
            spots = [(rng.uniform(30, width - 30), rng.uniform(30, height - 30)) for _ in range(40)]
        else:
            painter.setBrush(QColor("#f4f1ea"))
            painter.drawEllipse(QRectF(80, 150, width - 160, height - 170))
            spots = [
                (rng.uniform(150, width - 150), rng.uniform(170, height - 90)) for _ in range(45)
            ]
        for x, y in spots:
            painter.setBrush(QColor.fromHsv(rng.randint(0, 12), 220, rng.randint(180, 240)))
            painter.drawEllipse(QPointF(x, y), 22, 21)
            painter.setBrush(QColor("#ffffff"))
            painter.drawEllipse(QPointF(x - 7, y - 7), 4, 3)

    return draw


def _leaves(painter: QPainter, width: int, height: int) -> None:
    """Tomato leaves with brown spots in yellow rings."""
    rng = random.Random(9)
    painter.fillRect(0, 0, width, height, QColor("#6e5a45"))
    painter.setPen(Qt.PenStyle.NoPen)
    for _ in range(9):
        x, y = rng.uniform(60, width - 60), rng.uniform(60, height - 60)
        painter.setBrush(QColor("#5f9b3c"))
        painter.save()
        painter.translate(x, y)
        painter.rotate(rng.uniform(0, 180))
        painter.drawEllipse(QRectF(-90, -40, 180, 80))
        for _ in range(4):
            spot = QPointF(rng.uniform(-60, 60), rng.uniform(-20, 20))
            painter.setBrush(QColor("#d8c64a"))
            painter.drawEllipse(spot, 11, 11)
            painter.setBrush(QColor("#5b3a1e"))
            painter.drawEllipse(spot, 6, 6)
        painter.restore()


def _thumbnail(title: str, colour: str) -> Drawing:
    """A video thumbnail: a coloured ground, the title, a play button."""

    def draw(painter: QPainter, width: int, height: int) -> None:
        ground = QLinearGradient(0, 0, width, height)
        ground.setColorAt(0, QColor(colour))
        ground.setColorAt(1, QColor(colour).darker(170))
        painter.fillRect(0, 0, width, height, QBrush(ground))
        _text(painter, QRectF(30, 30, width - 60, height * 0.5), title, 22, "#ffffff", True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(255, 255, 255, 220))
        painter.drawEllipse(QPointF(width / 2, height * 0.74), 38, 38)
        painter.setBrush(QColor(colour).darker(150))
        triangle = QPainterPath(QPointF(width / 2 - 12, height * 0.74 - 18))
        triangle.lineTo(width / 2 + 20, height * 0.74)
        triangle.lineTo(width / 2 - 12, height * 0.74 + 18)
        triangle.closeSubpath()
        painter.drawPath(triangle)

    return draw


def _offline_demo(painter: QPainter, width: int, height: int) -> None:
    """A laptop on a stage showing an app, its network cable pulled out."""
    painter.fillRect(0, 0, width, height, QColor("#1f2430"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#cfd3da"))
    painter.drawRoundedRect(QRectF(width * 0.2, height * 0.15, width * 0.6, height * 0.55), 10, 10)
    painter.setBrush(QColor("#f7f7f7"))
    screen = QRectF(width * 0.23, height * 0.19, width * 0.54, height * 0.47)
    painter.drawRect(screen)
    _text(painter, screen, "Offline — 3 saves queued", 16, "#444444", True)
    painter.setBrush(QColor("#9aa0a8"))
    painter.drawRect(QRectF(width * 0.15, height * 0.7, width * 0.7, height * 0.05))
    painter.setPen(QPen(QColor("#f2c14e"), 6))
    painter.drawLine(int(width * 0.85), int(height * 0.72), int(width * 0.95), int(height * 0.9))


PICTURES: dict[str, tuple[int, int, Drawing]] = {
    "media.example.com/images/worm-compost.jpg": (640, 420, _worms),
    "media.example.com/images/rooftop-barrel.jpg": (640, 420, _barrel),
    "media.example.com/images/forgetting-curve.png": (
        640,
        400,
        _chart("Retention over 30 days", _forgetting(), ["#c0504d", "#4d7cc7"]),
    ),
    "media.example.com/images/outbox-states.png": (
        640,
        400,
        _boxes(
            "Outbox states",
            [
                ("queued", 0.2, 0.3, "#e8eef9"),
                ("sending", 0.5, 0.3, "#fff3d6"),
                ("accepted", 0.8, 0.3, "#e2f3e4"),
                ("confirmed", 0.8, 0.72, "#cdebd2"),
                ("needs attention", 0.5, 0.72, "#f9dede"),
            ],
            [(0, 1), (1, 2), (2, 3), (1, 4), (1, 0)],
        ),
    ),
    "devnotes.example.com/img/conflicts.png": (
        640,
        360,
        _boxes(
            "Two replicas diverge, then merge",
            [
                ("base", 0.15, 0.5, "#eeeeee"),
                ("replica A", 0.45, 0.28, "#e8eef9"),
                ("replica B", 0.45, 0.75, "#fff3d6"),
                ("merged", 0.82, 0.5, "#e2f3e4"),
            ],
            [(0, 1), (0, 2), (1, 3), (2, 3)],
        ),
    ),
    "img.example.com/yt/W0rmB1nDIY1/hq.jpg": (
        480,
        360,
        _thumbnail("Build a Worm Bin in 15 Minutes", "#7a5230"),
    ),
    "img.example.com/yt/Mem0ryK33p5/hq.jpg": (
        480,
        360,
        _thumbnail("How Memories Are Kept", "#4b4f9c"),
    ),
    "img.example.com/yt/Lf7xQ2mVb9E/hq.jpg": (
        480,
        360,
        _thumbnail("The Network Is an Optimisation", "#2d7d78"),
    ),
    "media.example.com/tweets/1790000000000000707/sleep-chart.jpg": (
        600,
        400,
        _bars("Word pairs recalled a week later", [("documentary", 0.55), ("60 min nap", 0.73)]),
    ),
    "media.example.com/tweets/1790000000000000505/tomatoes-bowl.jpg": (600, 420, _tomatoes(False)),
    "media.example.com/tweets/1790000000000000505/tomato-vines.jpg": (600, 420, _tomatoes(True)),
    "media.example.com/reddit/8dbc92/leaves.jpg": (600, 420, _leaves),
    "media.example.com/tweets/1790000000000000303/preview.jpg": (640, 360, _offline_demo),
}


def main() -> int:
    """Draw every picture into MEDIA."""
    QGuiApplication(sys.argv)
    for inside, (width, height, drawing) in PICTURES.items():
        image = QImage(width, height, QImage.Format.Format_RGB32)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        drawing(painter, width, height)
        painter.end()
        target = MEDIA / inside
        target.parent.mkdir(parents=True, exist_ok=True)
        quality = 70 if target.suffix == ".jpg" else -1
        if not image.save(str(target), None, quality):
            print(f"could not write {target}", file=sys.stderr)
            return 1
        print(f"{target.relative_to(MEDIA)}: {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
