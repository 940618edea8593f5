package dev.wirespeed.testing;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;

/**
 * A wrapped transport's poller, given the real endpoints and listeners behind a test transport's
 * wrappers: a test transport that wraps what it makes says how to unwrap them ({@link #real(Endpoint)},
 * {@link #real(Listener)}); every call is passed on.
 *
 * <p>Thread safety: as the wrapped poller's.
 */
class ForwardingPoller implements Poller {
    private final Poller poller;

    ForwardingPoller(Poller poller) {
        this.poller = poller;
    }

    /** {@return the wrapped transport's endpoint behind {@code endpoint}}: itself unless overridden */
    Endpoint real(Endpoint endpoint) {
        return endpoint;
    }

    /** {@return the wrapped transport's listener behind {@code listener}}: itself unless overridden */
    Listener real(Listener listener) {
        return listener;
    }

    @Override
    public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
        poller.register(real(endpoint), attachment, ops);
    }

    @Override
    public void register(Listener listener, Object attachment) throws IOException {
        poller.register(real(listener), attachment);
    }

    @Override
    public void interest(Endpoint endpoint, int ops) throws IOException {
        poller.interest(real(endpoint), ops);
    }

    @Override
    public void interest(Listener listener, int ops) throws IOException {
        poller.interest(real(listener), ops);
    }

    @Override
    public void deregister(Endpoint endpoint) {
        poller.deregister(real(endpoint));
    }

    @Override
    public int poll(long timeoutMillis, Ready ready) throws IOException {
        return poller.poll(timeoutMillis, ready);
    }

    @Override
    public void wakeup() {
        poller.wakeup();
    }

    @Override
    public void close() throws IOException {
        poller.close();
    }
}
