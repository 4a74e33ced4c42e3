"""Stand-in for harbor.models.agent.context (0.20): what an agent reports back to the trial."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class AgentContext:
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None
    rollout_details: Any = None
    metadata: dict = field(default_factory=dict)

    def is_empty(self) -> bool:
        return all(
            getattr(self, k) is None for k in ("n_input_tokens", "n_cache_tokens", "n_output_tokens", "cost_usd")
        )
