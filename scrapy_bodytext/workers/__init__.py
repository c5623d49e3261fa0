"""Where extraction runs: a thread or a pool of worker processes, how jobs travel to them, how many
CPUs are usable, and the workers' warm start."""
