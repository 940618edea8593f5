package dev.wirespeed.testing;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.SocketAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A transport whose endpoints throw what a test tells them to, as a transport with a bug, or out of
 * memory, would: the endpoint made (accepted or connected) after {@link #failNext} throws its error from
 * every call of the kind named (its poller's calls on it, for {@link Call#REGISTER} and {@link
 * Call#DEREGISTER}), in place of the call, or, for {@link Call#CLOSE} and {@link Call#DEREGISTER}, after
 * it (the socket closed all the same, as the test's peers need). Everything else is the wrapped transport's: each
 * endpoint is a proxy of the interfaces its own implements, so that the loop reads and writes it as it
 * does the real one (by address, lent, handed its output chunks), and the pollers are given the real ones.
 *
 * <p>Thread safety: {@link #failNext} and {@link #thrown()} from any thread; the rest as the wrapped
 * transport's.
 */
public final class FailingEndpoints implements LoopTransport {
    /** The calls an endpoint throws from. */
    public enum Call {
        /** Reading: {@code read}, by address or not, and {@code lend}. */
        READ("read", "lend"),
        /** Writing: {@code write}, by address or not, and {@code take}, a hand-over of output. */
        WRITE("write", "take"),
        /** Closing: {@code shutdownOutput}, {@code close} and {@code reset}, each passed on first. */
        CLOSE("shutdownOutput", "close", "reset"),
        /** Reading once the loop has shut down the output (a close that lingers for the peer's end): {@code read}, {@code lend}. */
        READ_WHILE_LINGERING("read", "lend"),
        /** Its poller's {@code register}, in place of the call: a connection never watched. */
        REGISTER("register"),
        /** Its poller's {@code deregister}, passed on first. */
        DEREGISTER("deregister");

        private final Set<String> methods;

        Call(String... methods) {
            this.methods = Set.of(methods);
        }
    }

    private final LoopTransport inner;
    private final AtomicInteger thrown = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();
    private Call nextCall;
    private Error nextError;

    /** Wraps {@code inner}: its endpoints throw when told to. */
    public FailingEndpoints(LoopTransport inner) {
        this.inner = inner;
    }

    /** Makes the next endpoint made throw {@code error} from each of its {@code call}s. */
    public synchronized void failNext(Call call, Error error) {
        nextCall = call;
        nextError = error;
    }

    /** {@return how many times the endpoints have thrown} */
    public int thrown() {
        return thrown.get();
    }

    /** {@return how many endpoints were closed or reset (each counted once)} */
    public int closed() {
        return closed.get();
    }

    private synchronized Handler handlerFor(Endpoint endpoint) {
        Handler h = new Handler(endpoint, nextCall, nextError);
        nextCall = null;
        nextError = null;
        return h;
    }

    /** {@return {@code endpoint} as a proxy of every interface it implements, or null for null} */
    private Endpoint wrap(Endpoint endpoint) {
        if (endpoint == null) {
            return null;
        }
        Set<Class<?>> interfaces = new LinkedHashSet<>();
        for (Class<?> c = endpoint.getClass(); c != null; c = c.getSuperclass()) {
            interfaces.addAll(List.of(c.getInterfaces()));
        }
        return (Endpoint) Proxy.newProxyInstance(FailingEndpoints.class.getClassLoader(),
                interfaces.toArray(Class<?>[]::new), handlerFor(endpoint));
    }

    /** {@return the wrapped transport's endpoint behind {@code endpoint}} */
    private static Endpoint unwrap(Endpoint endpoint) {
        return Proxy.isProxyClass(endpoint.getClass()) && Proxy.getInvocationHandler(endpoint) instanceof Handler h
                ? h.endpoint : endpoint;
    }

    /** One endpoint's calls, passed on, but those it throws from. */
    private final class Handler implements InvocationHandler {
        final Endpoint endpoint;
        final Call call;
        final Error error;
        /** Its output shut down; it closed or was reset (by the loop's thread alone). */
        boolean shutDown;
        boolean ended;

        Handler(Endpoint endpoint, Call call, Error error) {
            this.endpoint = endpoint;
            this.call = call;
            this.error = error;
        }

        /** Throws the error if {@code call} is this handler's, counted; {@code method}'s name one of the call's. */
        void throwIf(Call c, String method) {
            if (call == c && c.methods.contains(method)) {
                thrown.incrementAndGet();
                throw error;
            }
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("shutdownOutput")) {
                shutDown = true;
            }
            if (!ended && (method.getName().equals("close") || method.getName().equals("reset"))) {
                ended = true;
                closed.incrementAndGet();
            }
            if (call == Call.READ_WHILE_LINGERING && shutDown && call.methods.contains(method.getName())) {
                thrown.incrementAndGet();
                throw error;
            }
            if (call != null && call != Call.READ_WHILE_LINGERING && call.methods.contains(method.getName())) {
                if (call == Call.CLOSE) {
                    passOn(method, args); // closed, then the Error
                }
                thrown.incrementAndGet();
                throw error;
            }
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "failing " + endpoint;
                };
            }
            return passOn(method, args);
        }

        private Object passOn(Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(endpoint, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Override
    public String name() {
        return inner.name() + "-failing-endpoints";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new Unwrapping(inner.openPoller());
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        return new Wrapping(inner.listen(address, backlog));
    }

    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        return wrap(inner.connect(address));
    }

    /** The wrapped transport's listener, its connections wrapped. */
    private final class Wrapping implements Listener {
        final Listener listener;

        Wrapping(Listener listener) {
            this.listener = listener;
        }

        @Override
        public SocketAddress localAddress() {
            return listener.localAddress();
        }

        @Override
        public Endpoint accept() throws IOException {
            return wrap(listener.accept());
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    /** The wrapped transport's poller, given its own endpoints and listeners. */
    private static final class Unwrapping extends ForwardingPoller {
        Unwrapping(Poller poller) {
            super(poller);
        }

        @Override
        Endpoint real(Endpoint endpoint) {
            return unwrap(endpoint);
        }

        @Override
        public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
            handler(endpoint).ifPresent(h -> h.throwIf(Call.REGISTER, "register"));
            super.register(endpoint, attachment, ops);
        }

        @Override
        public void deregister(Endpoint endpoint) {
            super.deregister(endpoint);
            handler(endpoint).ifPresent(h -> h.throwIf(Call.DEREGISTER, "deregister"));
        }

        private static java.util.Optional<Handler> handler(Endpoint endpoint) {
            return Proxy.isProxyClass(endpoint.getClass()) && Proxy.getInvocationHandler(endpoint) instanceof Handler h
                    ? java.util.Optional.of(h) : java.util.Optional.empty();
        }

        @Override
        Listener real(Listener listener) {
            return ((Wrapping) listener).listener;
        }
    }
}
