"""The offline judge: which rubric claims an answer makes (by meaning and by cue phrases), and the
depth they support."""
