//! Offline review.
