package dev.wirespeed.testing;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * A transport whose listeners' accepts fail as a process out of descriptors sees them fail: the next
 * {@link #failNext(int)} accepts throw {@code IOException("Too many open files")} and leave the
 * connection in the backlog, so that the poller under them reports the listener ready again. Everything
 * else is the wrapped transport's, its connections and their readiness untouched. Each accept's time and
 * outcome is kept, for a test to see how often the loop tried, and each interest the loop set on a
 * listener, to see it stop and resume watching.
 *
 * <p>Thread safety: {@link #failNext} and {@link #calls()} from any thread; the rest as the wrapped
 * transport's.
 */
public final class FailingAccepts implements LoopTransport {
    /** The message of each failure: the JDK's for {@code EMFILE}. */
    public static final String MESSAGE = "Too many open files";

    /** One accept: when ({@link System#nanoTime()}), and whether it threw, took a connection, or found none. */
    public record Call(long nanos, Outcome outcome) {
    }

    /** What one accept did. */
    public enum Outcome {
        /** Threw, the connection left waiting. */
        FAILED,
        /** Took a connection. */
        ACCEPTED,
        /** Found none waiting. */
        NONE
    }

    private final LoopTransport inner;
    private final List<Call> calls = new ArrayList<>();
    private final List<Integer> listenerInterest = new ArrayList<>();
    private int failuresLeft;

    /** Wraps {@code inner}: its accepts fail when told to. */
    public FailingAccepts(LoopTransport inner) {
        this.inner = inner;
    }

    /** Makes the next {@code n} accepts, over all listeners, fail. */
    public synchronized void failNext(int n) {
        failuresLeft = n;
    }

    /** {@return the accepts so far, in order} */
    public synchronized List<Call> calls() {
        return List.copyOf(calls);
    }

    /** {@return the interest the loops set on the listeners so far, in order: 0 to stop watching, READ to watch} */
    public synchronized List<Integer> listenerInterest() {
        return List.copyOf(listenerInterest);
    }

    private synchronized void interestSet(int ops) {
        listenerInterest.add(ops);
    }

    private synchronized boolean fails() {
        if (failuresLeft > 0) {
            failuresLeft--;
            calls.add(new Call(System.nanoTime(), Outcome.FAILED));
            return true;
        }
        return false;
    }

    private synchronized void called(Endpoint accepted) {
        calls.add(new Call(System.nanoTime(), accepted == null ? Outcome.NONE : Outcome.ACCEPTED));
    }

    @Override
    public String name() {
        return inner.name() + "-failing-accepts";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new Unwrapping(inner.openPoller());
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new Failing(inner.listen(address, backlog));
    }

    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        return inner.connect(address);
    }

    private final class Failing implements Listener {
        final Listener listener;

        Failing(Listener listener) {
            this.listener = listener;
        }

        @Override
        public SocketAddress localAddress() {
            return listener.localAddress();
        }

        @Override
        public Endpoint accept() throws IOException {
            if (fails()) {
                throw new IOException(MESSAGE);
            }
            Endpoint accepted = listener.accept();
            called(accepted);
            return accepted;
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    /** The wrapped transport's poller, given its own listeners; it records each change of a listener's interest. */
    private final class Unwrapping extends ForwardingPoller {
        Unwrapping(Poller poller) {
            super(poller);
        }

        @Override
        Listener real(Listener listener) {
            return ((Failing) listener).listener;
        }

        @Override
        public void interest(Listener listener, int ops) throws IOException {
            interestSet(ops);
            super.interest(listener, ops);
        }
    }
}
