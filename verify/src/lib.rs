//! Agents, referees, tournaments and reports for tabula.
