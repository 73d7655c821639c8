//! Ioiwari agents, referee and verification.
