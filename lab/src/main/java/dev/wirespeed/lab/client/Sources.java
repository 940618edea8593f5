package dev.wirespeed.lab.client;

import dev.wirespeed.io.StandardChannels;
import dev.wirespeed.linux.NativePipe;
import dev.wirespeed.linux.NativeSocket;
import dev.wirespeed.tls.TlsSettings;
import java.io.Closeable;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The sources of each transport. */
public final class Sources {
    private Sources() {
    }

    /**
     * {@return a TCP connection}: {@code java.net.Socket} for streams, {@code SocketChannel} for channels
     *
     * @param address the peer
     */
    public static Source tcp(InetSocketAddress address) {
        return tcp(address, null);
    }

    /**
     * {@return a TCP connection}, over TLS for the strategies that open their own
     *
     * @param address the peer
     * @param tls the client's TLS, or null for plaintext
     */
    public static Source tcp(InetSocketAddress address, TlsSettings tls) {
        return new Base() {
            @Override
            public TlsSettings tls() {
                return tls;
            }

            @Override
            public SocketAddress socketAddress() {
                return address;
            }

            @Override
            public InputStream stream() throws IOException {
                Socket socket = open(new Socket());
                socket.connect(address);
                return socket.getInputStream();
            }

            @Override
            public ReadableByteChannel channel() throws IOException {
                return open(SocketChannel.open(address));
            }

            @Override
            public InetSocketAddress tcpAddress() {
                return address;
            }

            @Override
            public NativeSocket nativeSocket() throws IOException {
                return open(NativeSocket.connect(address));
            }
        };
    }

    /**
     * {@return a Unix domain socket}; streams wrap the channel, as the JDK offers no Unix {@code Socket}
     *
     * @param path the socket's path
     */
    public static Source unix(Path path) {
        return unix(path, null);
    }

    /**
     * {@return a Unix domain socket}, over TLS for the strategies that open their own
     *
     * @param path the socket's path
     * @param tls the client's TLS, or null for plaintext
     */
    public static Source unix(Path path, TlsSettings tls) {
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(path);
        return new Base() {
            @Override
            public TlsSettings tls() {
                return tls;
            }

            @Override
            public SocketAddress socketAddress() {
                return address;
            }

            @Override
            public InputStream stream() throws IOException {
                return Channels.newInputStream(channel());
            }

            @Override
            public ReadableByteChannel channel() throws IOException {
                SocketChannel channel = open(SocketChannel.open(StandardProtocolFamily.UNIX));
                channel.connect(address);
                return channel;
            }

            @Override
            public NativeSocket nativeSocket() throws IOException {
                return open(NativeSocket.connect(address));
            }
        };
    }

    /**
     * {@return a file}: {@code FileInputStream} for streams, {@code FileChannel} for channels
     *
     * @param path the file
     */
    public static Source file(Path path) {
        return new Base() {
            @Override
            public InputStream stream() throws IOException {
                return open(new FileInputStream(path.toFile()));
            }

            @Override
            public ReadableByteChannel channel() throws IOException {
                return open(FileChannel.open(path));
            }
        };
    }

    /** {@return standard input, as the second article read it} */
    public static Source stdin() {
        return new Source() {
            /** Standard input as a native pipe channel, once a busy-polling strategy asked for it. */
            private NativePipe pipe;

            @Override
            public InputStream stream() {
                return System.in;
            }

            @Override
            public InputStream rawStream() {
                return new FileInputStream(FileDescriptor.in);
            }

            @Override
            public ReadableByteChannel channel() {
                return StandardChannels.stdin();
            }

            @Override
            public ReadableByteChannel nonBlockingChannel() throws IOException {
                if (!NativeSocket.isSupported()) {
                    return channel(); // no native path: the JDK's channel, which cannot be non-blocking
                }
                pipe = NativePipe.stdin().configureBlocking(false);
                return pipe;
            }

            @Override
            public void close() throws IOException {
                // Standard input belongs to the process; a strategy that made it non-blocking puts the mode
                // back (NativePipe.close) when the client is done with it.
                if (pipe != null) {
                    pipe.close();
                }
            }
        };
    }

    /** Sources whose raw stream is their stream, closing what they opened. */
    private abstract static class Base implements Source {
        private final List<Closeable> opened = new ArrayList<>();
        /** True once {@link #abort()} ran: what is opened later is aborted at once. */
        private boolean aborted;

        synchronized <T extends Closeable> T open(T resource) {
            opened.add(resource);
            if (aborted) {
                abort(resource); // opened after the timeout fired: the read that follows must not wait
            }
            return resource;
        }

        @Override
        public InputStream rawStream() throws IOException {
            return stream();
        }

        @Override
        public synchronized void closeOnAbort(Closeable resource) {
            open(resource);
        }

        @Override
        public synchronized void abort() {
            aborted = true;
            for (Closeable resource : opened) {
                abort(resource);
            }
        }

        private static void abort(Closeable resource) {
            try {
                if (resource instanceof NativeSocket socket) {
                    socket.shutdownInput();
                } else {
                    resource.close();
                }
            } catch (IOException e) {
                // aborting: the reader reports what happened
            }
        }

        @Override
        public synchronized void close() throws IOException {
            for (Closeable resource : opened) {
                resource.close();
            }
        }
    }
}
