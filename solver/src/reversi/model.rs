//! Inferring the opponents' weights from their observed choices.
