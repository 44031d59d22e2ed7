//! The file-descriptor limit, and the connection cap derived from it.

/// Descriptors kept back for the listener, the upstream pool's spare
/// connections, logs and the metrics listener.
const RESERVED_FDS: u64 = 64;

/// Raises the soft limit on open files to the hard limit (a process may do
/// that without privileges) and gives the soft limit now in force, or
/// `None` where it cannot be read.
pub(crate) fn raise_fd_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        if limit.current.is_some() && limit.current != limit.maximum {
            let raised = Rlimit {
                current: limit.maximum,
                maximum: limit.maximum,
            };
            if setrlimit(Resource::Nofile, raised).is_ok() {
                return limit.maximum.or(Some(u64::MAX));
            }
        }
        Some(limit.current.unwrap_or(u64::MAX))
    }
    #[cfg(not(unix))]
    None
}

/// The default connection cap for a descriptor limit: each client
/// connection may hold one to the upstream as well, so half of what is
/// left after the reserve, between 64 and 1 048 576.
pub(crate) fn default_max_connections(fd_limit: Option<u64>) -> usize {
    let half = fd_limit.unwrap_or(1024).saturating_sub(RESERVED_FDS) / 2;
    usize::try_from(half.clamp(64, 1 << 20)).unwrap_or(1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_room_for_upstream_connections() {
        assert_eq!(default_max_connections(Some(1024)), 480);
        assert_eq!(default_max_connections(Some(100)), 64);
        assert_eq!(default_max_connections(Some(u64::MAX)), 1 << 20);
        assert_eq!(default_max_connections(None), 480);
    }

    #[test]
    fn the_soft_limit_is_raised_to_the_hard_one() {
        let now = raise_fd_limit();
        #[cfg(unix)]
        {
            let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
            assert_eq!(limit.current, limit.maximum);
            assert_eq!(now, Some(limit.current.unwrap_or(u64::MAX)));
        }
        #[cfg(not(unix))]
        assert_eq!(now, None);
    }
}
