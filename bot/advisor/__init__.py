"""The optional LLM advisor: advice where no rule can decide. An edge.

The deterministic rules decide statuses, sign-off verdicts and findings; the advisor only
adds advice, and only to questions a deterministic trigger raised (`questions`). Prompt
building (`prompt`), sanitising (`sanitize`) and grounding validation (`grounding`) are
pure functions; `client` is the only module that imports the `anthropic` SDK (an optional
extra: `pip install '.[llm]'`), and only when a call is made.
"""
