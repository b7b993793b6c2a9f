"""Citations as values (parse/cites.py): the grammar of ``cites:``, the hash DECAY.md documents,
and a block found where it moved; the new footer fields read and written without a byte lost."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_memory.core.checks.citations import checked
from agent_memory.parse import facts, footer
from agent_memory.parse.cites import (
    Citation,
    block_hash,
    cite,
    lines_of,
    parse_place,
    parse_value,
    path_problem,
    render_value,
)
from conftest import PROJECT

DECAY = (PROJECT / "DECAY.md").read_text()
# The by-hand commands of DECAY.md § Citations, as the document writes them.
BY_HAND = re.findall(r"^(.+?)\s+# (lines A to B|a whole file)$", DECAY, re.MULTILINE)

lines_text = st.lists(
    st.text(alphabet=" \t\rab(){}#é\x0b", max_size=12), min_size=1, max_size=8
).map(lambda lines: "\n".join(lines))


@pytest.mark.skipif(shutil.which("awk") is None, reason="no awk")
@settings(max_examples=40, deadline=None)
@given(lines_text, st.booleans(), st.data())
def test_the_hash_is_what_the_by_hand_commands_of_decay_md_print(
    tmp_path_factory: pytest.TempPathFactory, text: str, final_newline: bool, data: st.DataObject
) -> None:
    assert len(BY_HAND) == 2
    folder = tmp_path_factory.mktemp("hash")
    raw = (text + ("\n" if final_newline else "")).encode()
    (folder / "FILE").write_bytes(raw)
    count = len(lines_of(raw))
    start = data.draw(st.integers(1, max(count, 1)))
    end = data.draw(st.integers(start, max(count, start)))
    for command, what in BY_HAND:
        command = command.replace("'A,Bp'", f"'{start},{end}p'")
        done = subprocess.run(
            ["sh", "-c", command], cwd=folder, capture_output=True, text=True, check=True
        )
        whole = what == "a whole file"
        if not whole and end > count:
            continue  # sed prints nothing beyond the end; the tool refuses that range
        expected = cite("FILE", None, None, raw) if whole else cite("FILE", start, end, raw)
        assert done.stdout.strip() == expected.hash, (command, raw)


def test_whitespace_and_line_endings_do_not_change_the_hash() -> None:
    assert block_hash([b"def f(x):", b"    return  x"]) == block_hash(
        [b"def f(x):\r", b"\treturn x   "]
    )
    assert block_hash([b"return x"]) != block_hash([b"return y"])


@pytest.mark.parametrize(
    ("path", "wrong"),
    [
        ("/etc/passwd", "absolute"),
        ("../outside.py", "'..'"),
        ("src/../../x", "'..'"),
        ("src//x.py", "empty"),
        ("./x.py", "'.'"),
        ("a,b.py", "character"),
        ("a|b.py", "character"),
        ("a\\..\\b", "character"),
        ("a\nb", "character"),
        (" a.py", "character"),
        ("a-->b", "character"),
        ("x" * 2000, "longer"),
    ],
)
def test_a_path_that_is_not_plainly_inside_the_repo_cannot_be_cited(path: str, wrong: str) -> None:
    problem = path_problem(path)
    assert problem is not None and wrong in problem
    with pytest.raises(ValueError, match=re.escape(problem[:20])):
        parse_place(path)
    if path == path.strip():  # in a footer, spaces around a value are the separator's
        assert parse_value(f"{path}@0123456789ab")[1] is not None


def test_places_as_typed_and_values_as_written() -> None:
    assert parse_place("src/a.py") == ("src/a.py", None, None)
    assert parse_place("src/a.py:7") == ("src/a.py", 7, 7)
    assert parse_place("pkgs/@scope/a:b.ts:3-9") == ("pkgs/@scope/a:b.ts", 3, 9)
    with pytest.raises(ValueError, match="range"):
        parse_place("a.py:9-3")
    value = "src/a.py:3-9@0123456789ab, docs/x.md@abcdefabcdef"
    found, said = parse_value(value)
    assert said is None and render_value(found) == value
    assert found[0] == Citation("src/a.py", 3, 9, "0123456789ab")
    for bad in ("a.py", "a.py@0123", "a.py:0-3@0123456789ab", "a.py@0123456789AB", ""):
        assert parse_value(bad)[1] is not None, bad


def test_a_moved_block_is_found_nearest_its_old_place() -> None:
    source = b"x\na\nb\ny\na\nb\n"
    old = Citation("f", 3, 4, block_hash([b"a", b"b"]))
    others = (old._replace(start=5, end=6), old._replace(hash="0" * 12))
    found = checked([old, *others], {"f": source})
    assert found[old].moved_to == 2  # 2-3 and 5-6 hold it; 2 is nearer 3
    assert found[others[0]].state == "current"
    assert found[others[1]].state == "changed" and found[others[1]].moved_to is None
    whole = Citation("f", None, None, old.hash)  # a whole file is changed, never moved
    assert checked([whole], {"f": source})[whole].state == "changed"


names = st.sampled_from(["a", "b-2", "release-1.2.0"])
values = {
    "valid-until": st.sampled_from(["2026-03-03", "2027-12-31"]),
    "see": st.lists(names, min_size=1, max_size=3, unique=True).map(", ".join),
    "cites": st.lists(
        st.sampled_from(["src/a.py:3-9@0123456789ab", "x y/z.md@abcdefabcdef"]),
        min_size=1,
        max_size=2,
        unique=True,
    ).map(", ".join),
    "tier": st.sampled_from(footer.TIERS),
    "reason": st.sampled_from(["no longer true", "dropped, see #12"]),
}


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(sorted(values)), st.just(""), max_size=5).flatmap(
        lambda keys: st.fixed_dictionaries({k: values[k] for k in keys})
    ),
    st.booleans(),
    st.permutations(range(6)),
)
def test_footers_with_the_new_fields_read_and_render_as_written(
    fields: dict[str, str], inline: bool, order: list[int]
) -> None:
    """parse → render is the identity (any field order, either footer form); a footer written
    canonically reads back as the same fields, without a problem."""
    pairs = [("id", "a"), *fields.items()]
    shuffled = [pairs[i] for i in order if i < len(pairs)]
    body = " | ".join(f"{k}: {v}" for k, v in shuffled)
    comment = f"<!-- {body} -->"
    item = f"- A fact {comment}\n" if inline else f"- A fact\n  {comment}\n"
    data = f"# C\n\n## Key Decisions\n{item}- Next\n".encode()
    doc = facts.parse("c.md", data)
    assert doc.render() == data and not doc.problems
    assert dict(doc.facts[0].fields) == dict(pairs)
    canonical = footer.render(dict(pairs))
    again = facts.parse("c.md", f"## K\n- A fact\n  {canonical}\n".encode())
    assert dict(again.facts[0].fields) == dict(pairs) and not again.problems
    assert [k for k, _ in again.facts[0].fields] == [
        k for k in footer.CANONICAL if k in dict(pairs)
    ]


def test_a_bad_new_field_is_one_footer_error() -> None:
    data = (
        b"## K\n- A\n  <!-- id: a | valid-until: 2026-02-30 -->\n- B\n  <!-- id: b | see: B_c -->\n"
        b"- C\n  <!-- id: c | cites: /etc/passwd@0123456789ab -->\n"
    )
    found = [(p.line, p.check) for p in facts.parse("c.md", data).problems]
    assert found == [(3, "footer-value"), (5, "footer-value"), (7, "footer-value")]


def test_cited_files_are_read_by_lines_as_sed_numbers_them(tmp_path: Path) -> None:
    assert lines_of(b"a\nb\n") == [b"a", b"b"]
    assert lines_of(b"a\nb") == [b"a", b"b"]
    assert lines_of(b"") == []
    with pytest.raises(ValueError, match="3 lines"):
        cite("f", 2, 4, b"1\n2\n3\n")
