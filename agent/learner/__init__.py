"""The learner: the candidate's profile, drills scheduled on it, progress, and the library."""
