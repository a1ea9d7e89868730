import ZeroMQ

/// Which of the daemon's sockets one pass of its loop tries to read.
///
/// libzmq answers a receive that finds nothing with two system calls (`getpid`, and a `poll`
/// of the socket's mailbox). At a trickle of ingest (one or two items per pass) the loop
/// used to try the publish socket for subscriptions, the control socket and the ZAP socket
/// in every pass, after a wait that had already told it which were ready.
enum PassReadiness {
    /// The pass did not wait (a commit is in flight): every socket is tried.
    case all
    /// The wait timed out: no socket is tried.
    case none
    /// The wait found sockets ready: those are tried (what arrives after it is found by the
    /// next pass's wait, which checks each socket before it sleeps).
    case polled(Poller)

    /// Whether `socket` is to be read in this pass.
    func includes(_ socket: Socket) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .polled(let poller): poller.isReadable(socket)
        }
    }
}
