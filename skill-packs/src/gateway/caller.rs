//! Who makes a call: the calling pack, the user it runs for, and how deep it is nested.

use std::borrow::Cow;

use crate::manifest::Pack;

/// Who makes a call through the [`Gateway`](crate::Gateway): the pack it is made in the name
/// of and the user it runs for.
///
/// A host builds one per conversation turn and passes it by reference to every call; a
/// running skill's [`PackSession`](crate::PackSession) carries its own, one level deeper, so
/// nested calls are counted against [`MAX_CALL_DEPTH`](crate::MAX_CALL_DEPTH).
///
/// ```
/// use toolwright_packs::Caller;
///
/// let caller = Caller::new("jungastro", "alice");
/// assert_eq!((caller.pack(), caller.user(), caller.depth()), ("jungastro", "alice", 0));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Caller {
    pack: Cow<'static, str>,
    user: String,
    depth: u32,
}

impl Caller {
    /// A host's call in the name of the pack with id `pack`, for `user`.
    pub fn new(pack: impl Into<Cow<'static, str>>, user: impl Into<String>) -> Self {
        Self {
            pack: pack.into(),
            user: user.into(),
            depth: 0,
        }
    }

    /// A host's call in the name of pack `P`, for `user`.
    pub fn of<P: Pack>(user: impl Into<String>) -> Self {
        Self::new(P::ID, user)
    }

    /// The id of the calling pack.
    pub fn pack(&self) -> &str {
        &self.pack
    }

    /// The user the call runs for.
    pub fn user(&self) -> &str {
        &self.user
    }

    /// How many calls deep the caller runs: 0 for the host, 1 inside a tool the host called.
    pub fn depth(&self) -> u32 {
        self.depth
    }

    /// The caller a tool of `pack` becomes while it runs for this caller: same user, one
    /// level deeper.
    pub(crate) fn nested(&self, pack: &'static str) -> Self {
        Self {
            pack: Cow::Borrowed(pack),
            user: self.user.clone(),
            depth: self.depth + 1,
        }
    }
}
