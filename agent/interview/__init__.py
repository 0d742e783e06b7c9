"""The interview: the LangGraph graph, the policy, retrieval, the runner that drives a session and
its events, the session index and inbox, and the report."""
