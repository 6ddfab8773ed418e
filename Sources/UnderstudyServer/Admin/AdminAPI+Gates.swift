import Understudy

extension AdminAPI {
    /// `GET /__admin/gates`.
    func listGates() -> AdminResponse {
        .json(200, AdminJSON.GateList(gates: registry.gates.map(summary)))
    }

    /// `POST /__admin/gates/{name}/release` and `…/close`: a gate not named before is made, so
    /// a test may open a gate before any body reaches it.
    func operateGate(named name: String, _ action: Endpoint.GateAction) -> AdminResponse {
        let gate = registry.gate(name)
        switch action {
        case .release: gate.release()
        case .close: gate.close()
        }
        return .json(200, summary(of: gate))
    }

    private func summary(of gate: Gate) -> AdminJSON.GateSummary {
        AdminJSON.GateSummary(
            name: gate.name, open: gate.isOpen, waiting: gate.waitingCount, bytesSent: gate.bytesSentByWaiting, reached: gate.reachedCount
        )
    }
}
