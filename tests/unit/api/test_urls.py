"""The one URL parser: total on any text, strict about hosts, honest about what it shows."""

from __future__ import annotations

import nh3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memex_desktop.api.content import host_of
from memex_desktop.api.urls import (
    MAX_URL_CHARS,
    ParsedUrl,
    UrlProblem,
    hidden_characters,
    parse_url,
    parse_web_url,
    registrable_domain,
)


def _parsed(url: str) -> ParsedUrl:
    parsed = parse_url(url)
    assert isinstance(parsed, ParsedUrl), parsed
    return parsed


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("https://x.com:99999/p", "port 99999 is out of range"),
        ("https://x.com:8o/p", "not a number"),
        pytest.param("https://x.com:" + "9" * 5000 + "/", "out of range", id="5000-digit-port"),
        ("http://1.2.3.4.5/", "not a valid IPv4"),
        ("http://999.1.1.1/", "not a valid IPv4"),
        ("http://0x7f.1/", "not a valid IPv4"),
        ("http://2130706433/", "not a valid IPv4"),
        ("https://[::1/x", "closing bracket"),
        ("https://[::1]x/", "not a port"),
        ("https://[::g]/", "IPv6 address is not valid"),
        ("https://[fe80::1%25eth0]/", "IPv6 address is not valid"),
        ("https://a]b.com/", "bracket"),
        ("https://a\u202eb.com/", "reverse how text reads"),
        ("https://example.com/\u2066x\u2069", "reverse how text reads"),
        ("https://a\u2028b.com/", "U+2028 LINE SEPARATOR"),
        ("https://a\x00b.com/", "U+0000 NULL"),
        ("https://ex\tample.com/", "U+0009 TAB"),
        ("https://a\u200bb.com/", "U+200B ZERO WIDTH SPACE"),
        ("https://a\u00a0b.com/", "invisible or space"),
        ("https://exa mple.com/", "invisible or space"),
        ("https://a%2eb.com/", "percent-encoded"),
        ("https://a..b.com/", "empty part"),
        ("https://.a.com/", "empty part"),
        ("https://a!b.com/", "no web name may have"),
        ("https://xn--zz.com/", "not a valid international name"),
        ("https://i❤.ws/", "not a valid international name"),
        ("https://" + "a" * 64 + ".com/", "no web name may have"),
        pytest.param("https://" + ".".join(["a" * 60] * 5), "longer than 253", id="long-host"),
        ("https:///nohost", "no web site"),
        ("https://user@/x", "no web site"),
        ("https:example.com", "no web site"),
        ("//example.com/x", "does not start with a scheme"),
        ("#anchor", "does not start with a scheme"),
        ("", "empty"),
        pytest.param("https://x.com/" + "a" * MAX_URL_CHARS, "characters long", id="too-long"),
    ],
)
def test_malformed_addresses_are_refused_with_a_reason(url: str, words: str) -> None:
    problem = parse_url(url)
    assert isinstance(problem, UrlProblem)
    assert words in problem.reason


def test_direction_controls_are_named_and_flagged() -> None:
    problem = parse_url("https://moc.elgoog\u202e.evil.example/")
    assert isinstance(problem, UrlProblem)
    assert problem.reverses_text
    assert problem.characters == ("U+202E RIGHT-TO-LEFT OVERRIDE",)
    line_separator = parse_url("https://a\u2028b.com/")
    assert isinstance(line_separator, UrlProblem)
    assert not line_separator.reverses_text


def test_text_that_is_not_a_string_is_a_problem() -> None:
    assert isinstance(parse_url(None), UrlProblem)
    assert isinstance(parse_url(b"https://x.com/"), UrlProblem)


@pytest.mark.parametrize(
    ("url", "host", "ascii_host", "domain", "idn", "mixed"),
    [
        ("https://xn--pple-43d.com/", "аpple.com", "xn--pple-43d.com", "xn--pple-43d.com", 1, 1),
        ("https://аpple.com/", "аpple.com", "xn--pple-43d.com", "xn--pple-43d.com", 1, 1),
        ("https://XN--PPLE-43D.COM/", "аpple.com", "xn--pple-43d.com", "xn--pple-43d.com", 1, 1),
        ("https://bücher.example/", "bücher.example", "xn--bcher-kva.example", None, 1, 0),
        ("https://日本語.jp/", "日本語.jp", "xn--wgv71a119e.jp", None, 1, 0),
        ("https://ひらがな漢字.jp/", "ひらがな漢字.jp", None, None, 1, 0),
        ("https://яндекс.рф/", "яндекс.рф", "xn--d1acpjx3f.xn--p1ai", None, 1, 0),
        ("https://ρaypal.com/", "ρaypal.com", None, None, 1, 1),
        ("https://ｇｏｏｇｌｅ.com/", "google.com", "google.com", "google.com", 0, 0),
        ("https://News.BBC.co.uk/a", "news.bbc.co.uk", "news.bbc.co.uk", "bbc.co.uk", 0, 0),
        ("https://a.b.example.com./", "a.b.example.com.", None, "example.com", 0, 0),
        ("https://my_host.example/", "my_host.example", None, None, 0, 0),
        ("http://1.2.3.4./", "1.2.3.4", "1.2.3.4", "1.2.3.4", 0, 0),
        ("http://[0:0::1]:8080/", "[::1]", "[::1]", "[::1]", 0, 0),
        ("https://localhost/", "localhost", "localhost", "localhost", 0, 0),
    ],
)
def test_hosts_are_spelled_both_ways(
    url: str, host: str, ascii_host: str | None, domain: str | None, idn: int, mixed: int
) -> None:
    parsed = _parsed(url)
    assert parsed.host == host
    if ascii_host is not None:
        assert parsed.ascii_host == ascii_host
    assert parsed.ascii_host.isascii()
    if domain is not None:
        assert parsed.registrable_domain == domain
    assert (parsed.is_idn, parsed.mixed_scripts) == (bool(idn), bool(mixed))


def test_the_scripts_of_a_mixed_name_are_named() -> None:
    assert set(_parsed("https://xn--pple-43d.com/").scripts) == {"Cyrillic", "Latin"}


def test_userinfo_is_kept_apart_and_left_out_of_the_address() -> None:
    parsed = _parsed("https://google.com@evil.example/login?next=1#top")
    assert (parsed.userinfo, parsed.host, parsed.registrable_domain) == (
        "google.com",
        "evil.example",
        "evil.example",
    )
    assert parsed.hides_address
    assert parsed.ascii_url() == "https://evil.example/login?next=1#top"
    assert parsed.ascii_url(userinfo=True, fragment=False) == (
        "https://google.com@evil.example/login?next=1"
    )


def test_a_backslash_ends_the_host_of_a_web_address_as_browsers_read_it() -> None:
    parsed = _parsed("https://good.example\\@evil.example/")
    assert (parsed.host, parsed.userinfo) == ("good.example", "")
    assert parsed.ascii_url() == "https://good.example/@evil.example/"


def test_ports_and_parts() -> None:
    parsed = _parsed("HTTP://Example.com:8080/a b/é?q=%zz&r=%41#frag")
    assert (parsed.scheme, parsed.port, parsed.path, parsed.query, parsed.fragment) == (
        "http",
        8080,
        "/a b/é",
        "q=%zz&r=%41",
        "frag",
    )
    assert parsed.ascii_url() == "http://example.com:8080/a%20b/%C3%A9?q=%25zz&r=%41#frag"
    assert _parsed("https://x.com:/p").port is None
    assert _parsed("https://x.com").ascii_url() == "https://x.com/"


@pytest.mark.parametrize(
    ("url", "scheme", "path"),
    [
        ("mailto:someone@example.org", "mailto", "someone@example.org"),
        ("file:///etc/passwd", "file", "///etc/passwd"),
        ("javascript:alert(1)", "javascript", "alert(1)"),
        ("memex://entity/abc-1?t=3", "memex", "/abc-1"),
    ],
)
def test_other_schemes_parse_but_are_not_web(url: str, scheme: str, path: str) -> None:
    parsed = _parsed(url)
    assert (parsed.scheme, parsed.path, parsed.is_web) == (scheme, path, False)
    assert parsed.ascii_url() == url
    refused = parse_web_url(url)
    assert isinstance(refused, UrlProblem)
    assert f"“{scheme}:”" in refused.reason


def test_a_long_address_parses() -> None:
    url = "https://long.example/" + "a/" * 35_000
    parsed = parse_web_url(url)
    assert isinstance(parsed, ParsedUrl)
    assert parsed.ascii_url() == url


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("example.com", "example.com"),
        ("a.b.example.com", "example.com"),
        ("www.bbc.co.uk", "bbc.co.uk"),
        ("co.uk", "co.uk"),
        ("shop.example.com.au", "example.com.au"),
        ("alice.github.io", "github.io"),
        ("localhost", "localhost"),
    ],
)
def test_registrable_domain_rule(host: str, domain: str) -> None:
    assert registrable_domain(host) == domain


_PIECES = st.sampled_from(
    ["https://", "http://", "HTTPS:", "//", "/", "x", "com", ".", "..", ":", ":80", ":99999",
     "@", "[", "]", "::1", "1.2.3.4", "999", "0x", "%", "%2e", "xn--", "xn--pple-43d", "а",
     "ü", "日本", "\u202e", "\u2028", "\x00", "\u200b", " ", "\\", "?", "#", "_", "-", "ß",
     "。", "ｇ", "٣", "\ud83d", "a" * 70]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=60), st.lists(_PIECES, max_size=14).map("".join)))
def test_parsing_never_raises_and_what_it_accepts_nh3_accepts(text: str) -> None:
    parsed = parse_url(text)
    assert isinstance(parsed, ParsedUrl | UrlProblem)
    if isinstance(parsed, UrlProblem) or not parsed.is_web:
        return
    rebuilt = parsed.ascii_url()
    assert rebuilt.isascii()
    again = parse_url(rebuilt)
    assert isinstance(again, ParsedUrl), (text, rebuilt, again)
    assert again.ascii_url() == rebuilt
    assert (again.ascii_host, again.port) == (parsed.ascii_host, parsed.port)
    # nh3 raises ValueError on a base URL it cannot parse; every accepted one must pass.
    nh3.Cleaner(url_relative=("rewrite_with_base", rebuilt)).clean('<a href="/x">x</a>')
    nh3.Cleaner(url_relative=("rewrite_with_base", text.strip(" \t\n\r\f"))).clean("x")


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("example.com", ""),
        ("bücher.example", ""),
        ("a\u202eb.com", "\u202e"),
        ("a\u200bb\u00adc", "\u200b\u00ad"),
        ("a\x00b\u2028", "\x00\u2028"),
    ],
)
def test_hidden_characters(text: str, hidden: str) -> None:
    assert hidden_characters(text) == hidden


def test_a_site_name_with_hidden_characters_is_not_shown() -> None:
    assert host_of("https://a\u202eb.com/") == ""
    assert host_of("https://www.a\u200bb.com/") == ""
    assert host_of("https://www.bücher.example/") == "bücher.example"
