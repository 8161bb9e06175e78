# Every target creates the virtual environment it needs; nothing else has to be installed first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export QT_QPA_PLATFORM ?= offscreen

.PHONY: demo test lint test-slow test-bundle bench bundle screenshot clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-app: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-app

# On Linux the window needs X11/xcb system libraries the Qt wheel does not bring: installed
# here when run as root with apt-get, otherwise the one command to run is printed.
demo: $(VENV)/.installed-app
	QT_QPA_PLATFORM= $(BIN)/python -m memex_desktop.system_libs --install
	QT_QPA_PLATFORM= $(BIN)/memex-desktop --demo

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The offscreen plugin the tests' windows use links GL, EGL, fontconfig and xkbcommon.
test: lint
	$(BIN)/python -m memex_desktop.system_libs --install
	$(BIN)/python -m pytest -q -m "not slow and not bundle"

test-slow: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -m slow

test-bundle: $(VENV)/.installed-test
	$(BIN)/python -m pip install --quiet -e '.[test,bundle]'
	$(BIN)/python -m pytest -q -m bundle

bench: $(VENV)/.installed-test
	$(BIN)/memex-desktop bench

bundle: $(VENV)/.installed-app
	$(BIN)/python -m pip install --quiet -e '.[bundle]'
	$(BIN)/pyinstaller --noconfirm --clean --distpath dist --workpath build packaging/memex-desktop.spec

# The README's screenshots at 100 %, and the same at 150 % (QT_SCALE_FACTOR) to look at.
screenshot: $(VENV)/.installed-test
	QT_SCALE_FACTOR= $(BIN)/python tests/tools/screenshot.py resources/screenshots
	QT_SCALE_FACTOR=1.5 $(BIN)/python tests/tools/screenshot.py build/screenshots

clean:
	rm -rf $(VENV) build dist
