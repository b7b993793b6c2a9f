"""Where things live in an enabled repo, and the markers we own.

Every path here is relative to the target repo and POSIX-style; the shell (``shell/``) is the only
place that turns them into real paths.
"""

from __future__ import annotations

from types import MappingProxyType

from . import patterns

BLOCK_BEGIN = "<!-- agent-memory:begin -->"
BLOCK_END = "<!-- agent-memory:end -->"

MANIFEST = ".agent/version.md"
SCHEMA = ".agent/schema.md"
AGENT_DECAY = ".agent/DECAY.md"
AGENT_REVIEW = ".agent/REVIEW.md"
BACKUP_DIR = ".agent/backup"
# A disable's backup folder in BACKUP_DIR: its date, then a number when one disable of that day
# came before.
DISABLE_FOLDER = patterns.compile(
    r"\Adisable-([0-9]{4}-[0-9]{2}-[0-9]{2})(?:-([1-9][0-9]{0,5}))?\Z"
)
AGENTS_MD = "AGENTS.md"

MEMORY_DIR = "memory"  # every memory file is below it
CONTINUITY = "memory/continuity.md"
POLICY = "memory/decay-policy.md"
SESSIONS_DIR = "memory/sessions"
SESSIONS_KEEP = "memory/sessions/.gitkeep"
ARCHIVE_DIR = "memory/archive"
ARCHIVE_INDEX = "memory/archive/INDEX.md"
# Files the hand-run line added and 5.0.0 reads (DESIGN §13): one open thread per file, each one
# task item with its footer; the product vision, whose footer sits in a blockquote.
OPEN_THREADS_DIR = "memory/open-threads"
OPEN_THREADS = "Open Threads"
KEY_DECISIONS = "Key Decisions"  # where a fact goes when nothing names its section
VISION = "memory/vision.md"
# The proposals a person rejected (DECAY.md § The review gate): committed, append-only.
REJECTED = "memory/rejected.md"
# One person's own facts (DECAY.md § Personal facts): continuity.md's grammar, never committed.
PERSONAL = "memory/personal.md"
VISION_SECTION = "Vision"
# What `agent-memory import` reads (MIGRATE.md § Importing an agent's memory).
IMPORT_SOURCES = ("claude", "codex", "gemini", "serena", "cline", "context-yaml", "co-cli")

# How a 2.x file (the hand-run protocol before versioning) says it is ours.
LEGACY_MARKER = "agent-memory shared memory system"
# The hand-run line's protocol from 4.37.0 on, and the instruction files that pointed at it.
HANDRUN_PROTOCOL = "memory/PROTOCOL.md"
HANDRUN_POINTERS = (
    AGENTS_MD,
    "CLAUDE.md",
    "GEMINI.md",
    ".github/copilot-instructions.md",
    ".cursorrules",
    ".windsurfrules",
)

# Transient files of an apply in progress; both vanish when it completes.
LOCK_FILE = ".agent-memory.lock"
JOURNAL_DIR = ".agent-memory.journal"
TMP_SUFFIX = ".agent-memory-tmp"  # temp files: .<name>.<random>.agent-memory-tmp beside <name>

# Enable lists the transient files in .gitignore, inside a block of ours (DESIGN §15): a lock or a
# journal that was never committed cannot reach a clone; nor can a person's own facts (§27).
GITIGNORE = ".gitignore"
GITIGNORE_MARKERS = ("# agent-memory:begin", "# agent-memory:end")
GITIGNORE_BLOCK = (
    f"{GITIGNORE_MARKERS[0]}\n"
    "# agent-memory's transient files: a run's lock, its journal, its temp files\n"
    f"/{LOCK_FILE}\n"
    f"/{JOURNAL_DIR}/\n"
    f"*{TMP_SUFFIX}\n"
    "# one person's own facts, never shared (DECAY.md § Personal facts)\n"
    f"/{PERSONAL}\n"
    f"{GITIGNORE_MARKERS[1]}\n"
)

# Fully managed files: installed path -> source inside the packaged data. Overwritten on re-sync,
# after a backup when the user edited them (their hash is in the manifest).
FULLY_MANAGED = MappingProxyType(
    {
        SCHEMA: "templates/.agent/schema.md",
        AGENT_DECAY: "DECAY.md",
        AGENT_REVIEW: "REVIEW.md",
    }
)

# User data installed once from a template and never overwritten afterwards.
USER_DATA = MappingProxyType(
    {
        CONTINUITY: "templates/memory/continuity.md",
        POLICY: "templates/memory/decay-policy.md",
        ARCHIVE_INDEX: "templates/memory/archive/INDEX.md",
        SESSIONS_KEEP: "templates/memory/sessions/.gitkeep",
    }
)

# Vendor bootstraps: name -> (installed path, template, kind). A "block" file is user-owned with
# our managed block inside; a "managed" file is ours entirely.
VENDORS = MappingProxyType(
    {
        "claude": ("CLAUDE.md", "templates/CLAUDE.md", "block"),
        "gemini": ("GEMINI.md", "templates/GEMINI.md", "block"),
        "copilot": (
            ".github/copilot-instructions.md",
            "templates/.github/copilot-instructions.md",
            "block",
        ),
        "cursor": (
            ".cursor/rules/agent-memory.mdc",
            "templates/.cursor/rules/agent-memory.mdc",
            "managed",
        ),
    }
)
DEFAULT_VENDORS = ("claude", "gemini")
AGENTS_TEMPLATE = "templates/AGENTS.md"
MANIFEST_TEMPLATE = "templates/.agent/version.md"

# Git's merge attributes for the memory files: a managed block between "#" comment markers, and
# the driver they name, set in the repo's own git config (MERGE.md).
GITATTRIBUTES = ".gitattributes"
GITATTRIBUTES_TEMPLATE = "templates/.gitattributes"
GITATTRIBUTES_MARKERS = GITIGNORE_MARKERS  # the block markers of any file whose comments are #
MERGE_DRIVER_KEY = "merge.agent-memory.driver"
MERGE_DRIVER = "agent-memory merge-file %O %A %B %P"  # what 5.0.0 set; a clone's by hand
# After the installing tool (``shell/merge_driver.py``): the tool on PATH, else git's own text
# merge, which leaves conflict markers; each tried only if it runs at all (MERGE.md).
MERGE_DRIVER_FALLBACK = (
    "; elif agent-memory --version >/dev/null 2>&1; then exec agent-memory merge-file %O %A %B %P"
    "; else exec git merge-file -L ours -L base -L theirs -- %A %O %B; fi"
)

# What the tool writes in its own right, each path with all below it. A link from any other file
# onto one of them is refused (DESIGN §15): a plan would write that file as two different things.
OWN_PATHS = (
    ".agent",
    MEMORY_DIR,
    LOCK_FILE,
    JOURNAL_DIR,
    GITIGNORE,
    GITATTRIBUTES,
    VENDORS["cursor"][0],
)

# The session-start view's size (`context --max-bytes`): its default and its least.
CONTEXT_BYTES = 8192
CONTEXT_MIN_BYTES = 256

# A session log: YYYY-MM-DD-HHMMSS.md or YYYY-MM-DD-HHMMSS-<slug>.md.
# Only ASCII digits are digits (DESIGN §15): ``\d`` would take "٢٠٢٦" for a year.
SESSION_NAME = patterns.compile(
    r"^([0-9]{4}-[0-9]{2}-[0-9]{2})-([0-9]{6})(?:-[A-Za-z0-9][A-Za-z0-9._-]*)?\.md\Z"
)

# A session log's --slug: a log's name stays far below the file systems' 255-byte limit.
MAX_SLUG = 80


def slug_fits(slug: str) -> bool:
    return len(slug.encode("utf-8", errors="replace")) <= MAX_SLUG
