"""Stand-in for harbor.models.agent.context (0.20)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AgentContext:
    metadata: dict = field(default_factory=dict)
