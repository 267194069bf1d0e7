"""measure -- running the programs: the host, the plan of invocations, the launcher,
servers, fresh rounds, lockstep sessions, the stopping rule and the live line.
Imports core, catalog and analysis (the stopping rule asks the analysis)."""
