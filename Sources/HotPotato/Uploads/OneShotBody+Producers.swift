import Foundation

// The two producers of a one-shot body: an `AsyncSequence` iterated by a task, and an
// `InputStream` read on a thread of its own.
extension OneShotBody {
    /// A body of the elements of `chunks`, iterated on a task that asks for each element only when
    /// the engine wants the next bytes, on a thread of its own where the platform allows (see
    /// ``BodyProducerExecutor``); closing the body cancels the task.
    static func streaming<Chunks: AsyncSequence & Sendable>(_ chunks: Chunks, length: Int64?) -> OneShotBody
    where Chunks.Element == Data {
        OneShotBody(kind: "AsyncSequence", length: length) { body in
            let task: Task<Void, Never>
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
                let executor = BodyProducerExecutor()
                task = Task(executorPreference: executor) {
                    await iterate(chunks, into: body)
                    executor.finish()
                }
            } else {
                task = Task { await iterate(chunks, into: body) }
            }
            body.onClose { task.cancel() }
        }
    }

    /// Hands the elements of `chunks` to `body`, one each time it asks, then its end or failure.
    private static func iterate<Chunks: AsyncSequence>(_ chunks: Chunks, into body: OneShotBody) async where Chunks.Element == Data {
        var iterator = chunks.makeAsyncIterator()
        while await body.demand() {
            do {
                guard let chunk = try await iterator.next() else {
                    body.finish()
                    return
                }
                body.deliver(chunk)
            } catch {
                body.fail(error)
                return
            }
        }
    }

    /// How much of an `InputStream` is read at a time.
    static let streamReadSize = 64 * 1024

    /// A body of the bytes of `stream`, read on a thread of its own (an `InputStream` read
    /// blocks), one buffer at a time when the engine wants the next bytes. The stream is opened if
    /// it is not open yet, and closed at its end or when the body is closed. A read that never
    /// returns holds that thread, not the engine's.
    static func reading(_ stream: InputStream, length: Int64?) -> OneShotBody {
        let box = UncheckedSendable(stream)
        return OneShotBody(kind: "InputStream", length: length) { body in
            let thread = Thread {
                let stream = box.value
                if stream.streamStatus == .notOpen { stream.open() }
                defer { stream.close() }
                var buffer = [UInt8](repeating: 0, count: streamReadSize)
                while body.demandBlocking() {
                    let count = stream.read(&buffer, maxLength: buffer.count)
                    if count > 0 {
                        body.deliver(Data(buffer[0..<count]))
                    } else if count == 0 {
                        body.finish()
                        return
                    } else {
                        body.fail(stream.streamError ?? POSIXError(.EIO))
                        return
                    }
                }
            }
            thread.name = "HotPotato.body-stream"
            thread.start()
        }
    }
}
