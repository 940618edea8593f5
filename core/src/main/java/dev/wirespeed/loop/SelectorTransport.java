package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.Endpoint;
import dev.wirespeed.loop.spi.Listener;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.loop.spi.Poller;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/** The portable transport: the JDK's socket channels and {@code Selector}. */
final class SelectorTransport implements LoopTransport {
    static final SelectorTransport INSTANCE = new SelectorTransport();

    private SelectorTransport() {
    }

    @Override
    public String name() {
        return "selector";
    }

    @Override
    public Poller openPoller() throws IOException {
        return new SelectorPoller();
    }

    @Override
    public Listener listen(SocketAddress address, int backlog) throws IOException {
        ServerSocketChannel channel = address instanceof UnixDomainSocketAddress
                ? ServerSocketChannel.open(StandardProtocolFamily.UNIX) : ServerSocketChannel.open();
        try {
            if (address instanceof InetSocketAddress) {
                channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            }
            channel.bind(address, backlog);
            channel.configureBlocking(false);
            return new ChannelListener(channel, channel.getLocalAddress());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    @Override
    public Endpoint connect(SocketAddress address) throws IOException {
        boolean inet = address instanceof InetSocketAddress;
        SocketChannel channel = inet ? SocketChannel.open() : SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            channel.configureBlocking(false);
            if (inet) {
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            channel.connect(address); // true where it connected at once, as a Unix socket may
            return new ChannelEndpoint(channel, address, inet);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** A listening channel. */
    private record ChannelListener(ServerSocketChannel channel, SocketAddress localAddress) implements Listener {
        @Override
        public Endpoint accept() throws IOException {
            SocketChannel accepted = channel.accept();
            if (accepted == null) {
                return null;
            }
            try {
                accepted.configureBlocking(false);
                boolean inet = accepted.getRemoteAddress() instanceof InetSocketAddress;
                if (inet) {
                    accepted.setOption(StandardSocketOptions.TCP_NODELAY, true);
                }
                return new ChannelEndpoint(accepted, accepted.getRemoteAddress(), inet);
            } catch (IOException | RuntimeException e) {
                accepted.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** A connected channel and, once registered, its selection key. */
    private static final class ChannelEndpoint implements Endpoint {
        final SocketChannel channel;
        private final SocketAddress remote;
        private final boolean inet;
        SelectionKey key;

        ChannelEndpoint(SocketChannel channel, SocketAddress remote, boolean inet) {
            this.channel = channel;
            this.remote = remote;
            this.inet = inet;
        }

        @Override
        public SocketAddress remoteAddress() {
            return remote;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return channel.read(dst);
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            return channel.write(src);
        }

        @Override
        public boolean isOpen() {
            return channel.isOpen();
        }

        @Override
        public void shutdownOutput() throws IOException {
            channel.shutdownOutput();
        }

        @Override
        public boolean finishConnect() throws IOException {
            return channel.finishConnect();
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }

        @Override
        public void reset() {
            try {
                if (inet && channel.isOpen()) {
                    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
                }
            } catch (IOException ignored) {
                // a socket that refuses the option is broken already: closing it is all that is left
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // the descriptor is released even when close reports an error
            }
        }
    }

    /** A {@code Selector}, its ready keys handed over without the selected-key set. */
    private static final class SelectorPoller implements Poller {
        private final Selector selector = Selector.open();
        private Ready ready;
        private final Consumer<SelectionKey> dispatch = this::dispatch;

        SelectorPoller() throws IOException {
        }

        @Override
        public void register(Endpoint endpoint, Object attachment, int ops) throws IOException {
            ChannelEndpoint e = (ChannelEndpoint) endpoint;
            int interest = nio(ops);
            if (ops == CONNECT) { // a connect that ended at once shows as writable: OP_CONNECT would never fire
                interest = e.channel.isConnectionPending() ? SelectionKey.OP_CONNECT : SelectionKey.OP_WRITE;
            }
            e.key = e.channel.register(selector, interest, attachment);
        }

        @Override
        public void register(Listener listener, Object attachment) throws IOException {
            ((ChannelListener) listener).channel().register(selector, SelectionKey.OP_ACCEPT, attachment);
        }

        @Override
        public void interest(Listener listener, int ops) {
            SelectionKey key = ((ChannelListener) listener).channel().keyFor(selector);
            if (key != null && key.isValid()) { // else closed, and its key cancelled
                key.interestOps((ops & READ) != 0 ? SelectionKey.OP_ACCEPT : 0);
            }
        }

        @Override
        public void interest(Endpoint endpoint, int ops) {
            ((ChannelEndpoint) endpoint).key.interestOps(nio(ops));
        }

        @Override
        public void deregister(Endpoint endpoint) {
            SelectionKey key = ((ChannelEndpoint) endpoint).key;
            if (key != null) {
                key.cancel();
            }
        }

        @Override
        public int poll(long timeoutMillis, Ready ready) throws IOException {
            this.ready = ready;
            try {
                return timeoutMillis == 0 ? selector.selectNow(dispatch)
                        : selector.select(dispatch, timeoutMillis < 0 ? 0 : timeoutMillis);
            } catch (ClosedSelectorException e) {
                throw new IOException("the selector is closed", e);
            }
        }

        private void dispatch(SelectionKey key) {
            if (!key.isValid()) {
                return; // cancelled by an earlier socket's handler in this poll
            }
            int nio = key.readyOps();
            int ops = ((nio & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0 ? READ : 0)
                    | ((nio & SelectionKey.OP_WRITE) != 0 ? WRITE : 0) | ((nio & SelectionKey.OP_CONNECT) != 0 ? CONNECT : 0);
            ready.ready(key.attachment(), ops);
        }

        private static int nio(int ops) {
            return ((ops & READ) != 0 ? SelectionKey.OP_READ : 0) | ((ops & WRITE) != 0 ? SelectionKey.OP_WRITE : 0);
        }

        @Override
        public void wakeup() {
            selector.wakeup();
        }

        @Override
        public void close() throws IOException {
            selector.close();
        }
    }
}
