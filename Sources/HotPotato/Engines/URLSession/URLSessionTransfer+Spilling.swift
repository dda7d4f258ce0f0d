import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Spilling: past the high-water mark, a slow handler is fed from a ``SpillBuffer`` on the
// consumer queue while the delegate queue only appends to it.
extension URLSessionTransfer {
    /// The bytes waiting on the delegate queue, estimated from its count of events and
    /// URLSession's chunk size (16 KiB on Linux).
    private func backlogBytes() -> Int {
        backlog() * 16 * 1024
    }

    /// Called on the delegate queue every ``sampleInterval`` chunks delivered directly: starts
    /// spilling when the handler is slow and the backlog is past the high-water mark.
    func sampleBacklog() {
        guard handlerNanosPerByte > Self.slowHandlerNanosPerByte else { return }
        let backlog = backlogBytes()
        guard backlog > highWaterMark else { return }
        let file = SpillBuffer(memoryLimit: 0, readSize: Self.spillReadSize)
        do {
            try file.makeFile()
        } catch {
            // No spill file (an unwritable or full temporary directory): growing past the bound
            // is not an option, so the call fails.
            sink.fail(bufferingFailure(
                "A slow handler fell \(backlog) bytes behind, past the \(highWaterMark)-byte high-water mark, and the "
                    + "rest could not be spilled to a temporary file", error))
            stop()
            return
        }
        let spilling = state.withLock { state -> Spilling in
            let spilling = state.spilling ?? Spilling()
            state.spilling = spilling
            state.mode = .spilling(file)
            return spilling
        }
        spilling.consumerQueue.async { self.drainSpill(file, spilled: spilling.spilled) }
    }

    /// Runs on the consumer queue: feeds the handler from the spill file until it has caught up,
    /// then hands chunks back to the delegate queue.
    private func drainSpill(_ spill: SpillBuffer, spilled: DispatchSemaphore) {
        while !sink.isFinished {
            enum Next { case read(SpillBuffer.Block), end(TransferEnding), drained }
            let next: Next = state.withLock { state in
                if let block = spill.oldest() { return .read(block) }
                if let ending = state.ending { return .end(ending) }
                return .drained
            }
            switch next {
            case .read(let block):
                do {
                    // Read outside the lock: the delegate queue appends meanwhile.
                    let bytes = try spill.bytes(of: block)
                    state.withLock { _ in spill.consume(block) }
                    if !sink.receive(bytes) { stop() }
                } catch {
                    sink.fail(HotPotatoError(
                        .fileSystemError, reason: "Reading back buffered body bytes failed: \(error)", underlying: error))
                    stop()
                }
            case .end(let ending):
                deliver(ending)
                return
            case .drained:
                // Hand back to direct delivery only once URLSession's own backlog is small too;
                // otherwise wait for the delegate queue to spill more. The backlog is counted
                // outside the lock: counting is linear in its length.
                let small = backlogBytes() <= highWaterMark / 4
                let resumed = state.withLock { state -> Bool in
                    guard spill.isEmpty, state.ending == nil else { return false }
                    if small { state.mode = .direct } else { state.consumerWaiting = true }
                    return small
                }
                if resumed { return }
                _ = spilled.wait(timeout: .now() + .milliseconds(5))
                state.withLock { $0.consumerWaiting = false }
            }
        }
        // The call is settled (failed or cancelled) while spilling: stop spilling, and if the
        // task has already ended, nothing else will release this transfer.
        let ended = state.withLock { state -> Bool in
            state.mode = .direct
            return state.ending != nil
        }
        if ended { releaseFromEngine() }
    }

    /// ``HotPotatoError/Code/bufferingFailed``, with the high-water mark and the temporary directory.
    func bufferingFailure(_ what: String, _ error: any Error) -> HotPotatoError {
        .bufferingFailed(
            what, limit: Int64(highWaterMark), directory: FileManager.default.temporaryDirectory.path, underlying: error)
    }
}
