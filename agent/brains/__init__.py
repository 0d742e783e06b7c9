"""The brains: the `Brain` protocol and the offline brain, how the interviewer hears replies and
words its lines, and the LLM brain (`llm/`: client, prompts, verifier, doctor, drafting)."""
