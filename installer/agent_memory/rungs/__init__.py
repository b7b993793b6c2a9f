"""The shipped rungs, one module each; UPGRADE.md describes each one for upgrading by hand."""

from . import v3_0_0

RUNGS = (v3_0_0.RUNG,)
