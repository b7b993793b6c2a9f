"""What Mode C looks at: the vendor instruction files and memory stores (MIGRATE.md's table).

Only these paths are read; a test checks the table against MIGRATE.md's.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

MIGRATED_DIR = ".agent/migrated"


@dataclass(frozen=True, slots=True)
class Source:
    """One row of the detection table (MIGRATE.md § What is detected)."""

    pattern: str
    kind: str  # how it is read: see the table in MIGRATE.md
    vendor: str | None  # the bootstrap it implies


INSTRUCTIONS = (
    Source("AGENTS.md", "agents", None),
    Source("CLAUDE.md", "import", "claude"),
    Source(".claude/CLAUDE.md", "plain", "claude"),
    Source(".claude/rules/*.md", "frontmatter", "claude"),
    Source("GEMINI.md", "import", "gemini"),
    Source(".cursorrules", "plain", "cursor"),
    Source(".cursor/rules/**/*.mdc", "cursor-rule", "cursor"),
    Source(".github/copilot-instructions.md", "copilot", "copilot"),
    Source(".github/instructions/*.instructions.md", "scoped", "copilot"),
    Source(".windsurfrules", "plain", None),
    Source(".windsurf/rules/*.md", "frontmatter", None),
    Source(".clinerules", "plain", None),
    Source(".clinerules/*.md", "frontmatter", None),
    Source(".roo/rules/*", "plain", None),
    Source("CONVENTIONS.md", "plain", None),
    Source(".junie/guidelines.md", "plain", None),
    Source(".amazonq/rules/*.md", "frontmatter", None),
    Source(".kiro/steering/*.md", "frontmatter", None),
    Source(".rules", "plain", None),
    Source(".continue/rules/*.md", "frontmatter", None),
)
STORES = (
    Source("memory-bank/*.md", "memory-bank", None),
    Source("CONTEXT.yaml", "context-yaml", None),
    Source(".co-cli/knowledge/context.md", "co-cli-context", None),
    Source(".co-cli/knowledge/memories/*.md", "co-cli-memory", None),
)
TABLE = INSTRUCTIONS + STORES


def matches(pattern: str, path: str) -> bool:
    """Whether ``path`` is a file of this table row (``**`` spans folders, ``*`` does not)."""
    if "**" in pattern:
        head, tail = pattern.split("/**/", 1)
        return path.startswith(head + "/") and fnmatch.fnmatch(path.rsplit("/", 1)[-1], tail)
    return fnmatch.fnmatch(path, pattern) and path.count("/") == pattern.count("/")


def source_of(path: str) -> Source:
    return next(source for source in TABLE if matches(source.pattern, path))
