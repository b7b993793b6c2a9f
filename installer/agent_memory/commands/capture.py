"""``agent-memory session capture``: write the session log from the agent's transcript.

The one file it writes is the session's log in ``memory/sessions/``: a new one, or the session's
own log while it is still open (``own_log``: no review read it, git does not hold it), rewritten
with the whole part (``core.agents.parts``). A log a review read or git holds is never touched
(the plan's ``before`` is what was read, which the applier re-checks under the lock). With
``--hook`` the transcript's path comes from the JSON an agent's hook passes on stdin, and another
run's lock is waited for up to ``hook_payload.HOOK_WAIT`` seconds unless ``--wait`` says otherwise.
"""

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, NamedTuple

from ..core.agents import capture as capturing
from ..core.agents import parts, proposals
from ..core.plan import FileEdit, Outcome, Plan
from ..errors import AgentMemoryError, InputError
from ..layout import CONTINUITY, SESSIONS_DIR
from ..parse import facts, hookinput, transcripts, untrusted
from ..parse.dates import parse_moment
from ..parse.facts import Document
from ..parse.footer import id_values
from ..parse.lognames import LogNames
from ..parse.memory import Memory, known_ids
from ..parse.transcripts import Bad, Item, Meta
from ..parse.untrusted import one_line
from ..shell.discovery import top_as_named
from ..shell.git import file_before
from ..shell.load import archive_files, load
from ..shell.repo import Repo
from ..shell.stream import files_in, hook_input, lines, present
from .own_log import still_open
from .report import Report, Result
from .settle import Options, not_enabled, settle

_HEAD_MAX = 1000  # records read before the one that names the session, at most
# Claude Code writes a subagent's work to <session>/subagents/agent-<id>.jsonl beside the
# session's <session>.jsonl; agent-acompact-* files are its compaction, not work.
_SUBAGENTS = "subagents"
_SUBAGENTS_MAX = 1000


class CaptureOptions(NamedTuple):
    transcript: Path | None
    agent: str | None = None
    hook: IO[str] | None = None  # stdin of a hook: JSON with "transcript_path"


def capture(repo: Repo, options: CaptureOptions) -> Result:
    if options.transcript is not None:  # named by a person: a file that is not there is a typo
        return _capture(repo, options.transcript, options.agent, None)
    return capture_transcript(repo, _from_hook(options.hook), options.agent)


def capture_transcript(
    repo: Repo, transcript: Path | None, agent: str | None = None, session_id: str | None = None
) -> Result:
    """What a hook asks for: the session of ``transcript`` (as the agent's hook names it; None
    when it names none) captured. No transcript, or none at that path, is nothing to capture:
    the agent fires hooks for runs that are no session (``claude mcp list``). ``session_id`` is
    the hook's, for a transcript that does not name its own (one of the wrong shape is none)."""
    if transcript is None:
        return _nothing(repo, "the hook names no transcript")
    if not present(transcript):
        return _nothing(repo, f"{one_line(str(transcript))} does not exist")
    return _capture(repo, transcript, agent, untrusted.session_id(session_id))


def _from_hook(stdin: IO[str] | None) -> Path | None:
    """The transcript named by a hook's stdin payload (all three agents call it the same)."""
    if stdin is None or stdin.isatty():  # a person at a terminal: do not wait for input
        raise AgentMemoryError("pass --transcript FILE, or --hook with the hook's JSON on stdin")
    most, seconds = hookinput.PAYLOAD_MAX, hookinput.PAYLOAD_SECONDS
    where = hookinput.transcript_path(
        hook_input(stdin, hookinput.whole, most, seconds, hookinput.CAPTURE_FIX)
    )
    return None if where is None else Path(where)


def _nothing(repo: Repo, why: str) -> Result:
    """Exit 0 and one line on stderr: the hook did its job, and nothing was written."""
    result = _report(Path(repo.shown), "unchanged", (), {"nothing_to_capture": why})
    return result._replace(notes=(f"agent-memory: nothing to capture: {why}",))


class _Read(NamedTuple):
    agent: str
    session: capturing.Session
    found: list[parts.Part]
    resume: parts.Resume
    proposed: proposals.Gathered  # what the part proposed (DECAY.md § Proposals)
    memory: Callable[[], Memory]  # the memory, read on the first call


def _capture(
    repo: Repo, transcript: Path, agent: str | None, session_id: str | None, reopen: bool = True
) -> Result:
    if not repo.exists(CONTINUITY):
        raise not_enabled(repo)
    # The memory is read once the transcript holds something new (the archive only where an id
    # the agent named may be: _named); the logs' names are needed to know that.
    lazily = functools.cache(lambda: load(repo, archives=False))
    shown = one_line(str(transcript))
    listed = repo.list_dir(SESSIONS_DIR, ordered=False)
    try:
        read = _read(repo, (listed, lazily), _main(transcript), agent, session_id, reopen)
    except transcripts.NotATranscript as exc:
        raise InputError(shown, None, str(exc), "pass a transcript file") from None
    session, resume = read.session, read.resume
    if session.last_line == 0:
        names = [part.name for part in read.found]
        said = f"already captured in {', '.join(names)}" if names else "the agent did nothing"
        return _report(Path(repo.shown), "unchanged", (f"nothing new to capture: {said}",), {})
    if session.start is None or parse_moment(session.start) is None:
        raise InputError(shown, None, "holds no start time", "pass a transcript file")
    memory = read.memory()
    if memory.continuity is None:
        raise not_enabled(repo)
    assert session.session_id is not None  # _read checks it
    start_doc = _parsed(file_before(repo.root, session.start, CONTINUITY))
    found = capturing.changes(start_doc, memory.continuity, session.start, resume.created)
    top = top_as_named(repo.root, session.cwd) if session.cwd else str(repo.root)
    files = capturing.repo_paths(session.files, session.cwd, session.project_hash, top)
    reopened = resume.reopened
    name = reopened.name if reopened else _new_name(read.agent, session, memory)
    told = session if memory.policy.record_first_prompt else session._replace(first_prompt=None)
    wanted = read.proposed
    if memory.personal is not None:  # one person's fact is never proposed in a committed log
        wanted = proposals.leaving_out(wanted, memory.personal)
    log = capturing.render(read.agent, told, name, files, found, proposals.render(wanted))
    rel = f"{SESSIONS_DIR}/{name}"
    before = repo.read(rel) if reopened else None
    if before is not None and not parts.rewritable(before):  # someone wrote in it
        return _capture(repo, transcript, agent, session_id, reopen=False)
    if before is None and repo.exists(rel):  # a log of that name not written from these lines
        raise AgentMemoryError("already exists and session logs are never overwritten", rel)
    lines_read = f"lines {session.first_line}-{session.last_line}"
    outcome, why = (Outcome.UPDATED, "captured again") if before else (Outcome.CREATED, "captured")
    plan = Plan.of([FileEdit(rel, before, log.text.encode(), outcome, f"{why}: {lines_read}")])
    settled = settle(repo, [plan], Options(), "unchanged")
    redacted = sum(log.redacted.values())
    said = f"; {redacted} secrets redacted" if redacted else ""
    if settled.outcome == "unchanged":
        closing: tuple[str, ...] = (f"nothing new to capture: already captured in {name}",)
    else:
        closing = (rel, f"captured {read.agent} session {session.session_id}{said}")
    data = {"path": rel, "agent": read.agent, "redacted": dict(log.redacted)}
    return _report(Path(repo.shown), settled.outcome, closing, data)


def _read(
    repo: Repo,
    known: tuple[Sequence[str], Callable[[], Memory]],
    transcript: Path,
    agent: str | None,
    session_id: str | None,
    reopen: bool,
) -> _Read:
    """The transcript read once: its session, the session's logs, where this capture starts
    (``reopen``: in the session's open log, if it has one)."""
    agent, items = transcripts.read(lines(transcript, transcripts.LINE_MAX), agent)
    head, meta = _until_session_id(items)
    session_id = meta.session_id if meta is not None else session_id
    if not session_id:
        raise transcripts.NotATranscript(
            "names no session id (ASCII letters, digits, '.', '_', ':' and '-')"
        )
    listed, memory = known  # the names in memory/sessions/, and the memory when asked
    suffixes = parts.log_suffixes(agent, session_id)
    ours = LogNames(name for name in listed if name.endswith(suffixes)).logs
    found = parts.parts(repo.read_each(SESSIONS_DIR, ours), session_id)
    if found and _covered(transcript, agent, found[-1]):  # a hook fired again, nothing new
        nothing = capturing.collect(iter(()), frozenset(), 0)
        resume = parts.resume(found, False)
        return _Read(agent, nothing, found, resume, proposals.Gathered(), memory)
    last_open = reopen and bool(found) and still_open(repo, memory(), found[-1].name)
    resume = parts.resume(found, last_open)
    side = _subagents(transcript) if agent == "claude" else iter(())
    archive = functools.cache(lambda: _archive(repo))  # read only if the transcript is new

    def maybe() -> frozenset[str]:
        return memory().known_ids.union(*(values for _path, _data, values in archive()))

    proposed = proposals.Gathered()
    seen = proposals.watching(itertools.chain(head, items), resume.after, proposed)
    session = capturing.collect(seen, maybe, resume.after, side, resume.since)
    named = _named(session.named, memory().known_ids, archive) if session.named else ()
    session = session._replace(session_id=session_id, named=named)
    return _Read(agent, session, found, resume, proposed, memory)


def _covered(transcript: Path, agent: str, last: parts.Part) -> bool:
    """Whether the session's last log covers every record of its transcript, and of its
    subagents' (HOOKS.md § One session, one log): then the capture has nothing to add, and
    neither the memory nor git is read (Gemini CLI fires its hook before every model turn). A
    line that could not be read counts as new: the log says what could not be; and so does a
    last line the log says was cut that is whole now, though it may hold nothing to count."""
    _agent, items = transcripts.read(lines(transcript, transcripts.LINE_MAX), agent)
    if any(not isinstance(item, Meta) and item.line > last.last_line for item in items):
        return False
    if last.cut and not any(isinstance(item, Bad) and item.last for item in items):
        return False
    side = _subagents(transcript) if agent == "claude" else iter(())
    return not any(
        isinstance(item, Bad) or capturing.later(item.time, last.end)
        for item in side
        if not isinstance(item, Meta)
    )


def _archive(repo: Repo) -> list[tuple[str, bytes, set[str]]]:
    """The archive's files and the ids each may hold."""
    files = archive_files(repo)
    return [(path, data, id_values(data.decode(errors="replace"))) for path, data in files]


def _named(
    maybe: tuple[str, ...],
    live: frozenset[str],
    archive: Callable[[], list[tuple[str, bytes, set[str]]]],
) -> tuple[str, ...]:
    """The ids among ``maybe`` (named, in order, from a superset of the known ids) that a fact
    holds: an archived one is known only by parsing the archive files that may name it, which
    a capture whose ids are all live never does (the archive may hold thousands of facts)."""
    wanted = set(maybe) - live
    if not wanted:
        return maybe
    docs = [facts.parse(path, data) for path, data, values in archive() if values & wanted]
    known = live | known_ids(docs)
    return tuple(i for i in maybe if i in known)


def _main(transcript: Path) -> Path:
    """The session's own transcript for a Claude Code subagent's, when it is there: capturing
    either captures the session, whose log holds both (its lines are the session's file's)."""
    folder = transcript.parent
    if folder.name != _SUBAGENTS or not _is_subagent(transcript.name):
        return transcript
    main = folder.parent.with_name(f"{folder.parent.name}.jsonl")
    return main if present(main) else transcript


def _is_subagent(name: str) -> bool:
    return name.startswith("agent-") and name.endswith(".jsonl") and "acompact" not in name


def _subagents(transcript: Path) -> Iterator[Item]:
    """The items of the subagents' transcripts of the session whose transcript this is."""
    if transcript.parent.name == _SUBAGENTS:  # a subagent's file captured alone
        return
    folder = transcript.with_name(transcript.name.removesuffix(".jsonl")) / _SUBAGENTS
    for path in files_in(folder, _is_subagent, _SUBAGENTS_MAX):
        try:
            _agent, items = transcripts.read(lines(path, transcripts.LINE_MAX), "claude")
        except transcripts.NotATranscript:  # empty, or not yet written: nothing of its
            continue
        yield from items


def _new_name(agent: str, session: capturing.Session, memory: Memory) -> str:
    assert session.session_id and session.start  # the caller checked both
    name = parts.log_name(agent, session.session_id, session.start, frozenset(memory.logs))
    if name is None:
        raise AgentMemoryError(
            "every name this session's new log could have is taken; remove a stray log",
            SESSIONS_DIR,
        )
    return name


def _until_session_id(items: Iterator[Item]) -> tuple[list[Item], Meta | None]:
    """The items up to the first that names the session (the first line, in practice), held
    until then: at most ``_HEAD_MAX`` of them."""
    head: list[Item] = []
    for item in items:
        head.append(item)
        if isinstance(item, Meta) and item.session_id:
            return head, item
        if len(head) >= _HEAD_MAX:
            break
    return head, None


def _parsed(data: bytes | None) -> Document | None:
    if data is None:
        return None
    try:
        return facts.parse(CONTINUITY, data)
    except AgentMemoryError:  # a broken old version: no start state, as without git
        return None


def _report(
    path: Path, outcome: str, closing: tuple[str, ...], data: Mapping[str, object]
) -> Result:
    report = Report("session capture", str(path), outcome, None, (), data)
    return Result(report._replace(closing=closing), 0)
