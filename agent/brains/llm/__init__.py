"""The LLM brain: litellm calls, prompts, the verifier that checks a model's verdict, `doctor`,
and drafting questions of your own."""
