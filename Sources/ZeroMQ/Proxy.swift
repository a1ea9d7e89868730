import CZeroMQ

/// ZeroMQ's built-in proxy (`zmq_proxy_steerable`): moves every message from `frontend` to
/// `backend` and back, inside libzmq, until a `TERMINATE` message arrives on `control`.
///
/// Between an XSUB (frontend, connected upstream) and an XPUB (backend, bound for
/// subscribers) this is the forwarder of the ZeroMQ guide: messages travel down unchanged and
/// subscriptions travel up.
public enum Proxy {
    /// The command that ends ``run(frontend:backend:control:)``, sent on its control socket.
    public static let terminate: [UInt8] = Array("TERMINATE".utf8)

    /// Runs the proxy on the calling thread until `control` receives ``terminate`` (then it
    /// returns normally) or the context is shut down (then it throws with `ETERM`). All three
    /// sockets belong to the calling thread for that time.
    public static func run(frontend: Socket, backend: Socket, control: Socket) throws(ZeroMQError) {
        let front = try frontend.openHandle("zmq_proxy_steerable frontend")
        let back = try backend.openHandle("zmq_proxy_steerable backend")
        let steer = try control.openHandle("zmq_proxy_steerable control")
        while zmq_proxy_steerable(front, back, nil, steer) != 0 {
            let error = ZeroMQError.fromErrno(operation: "zmq_proxy_steerable")
            // A signal interrupted the poll inside the proxy: carry on where it was.
            guard error.isInterrupted else { throw error }
        }
    }
}
