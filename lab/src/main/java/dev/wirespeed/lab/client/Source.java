package dev.wirespeed.lab.client;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.ReadableByteChannel;

/**
 * Where a client's bytes come from, opened the way each of the articles' clients opened it. A
 * strategy opens exactly one of the three; the source closes what was opened.
 */
public interface Source extends Closeable {
    /**
     * {@return the stream the articles' stream clients read}: the socket's or file's own stream, or
     * {@code System.in} (already buffered by the JDK) on standard input
     *
     * @throws IOException if it cannot be opened (for example connection refused)
     */
    InputStream stream() throws IOException;

    /**
     * {@return an unbuffered stream}: the same as {@link #stream()} except on standard input, where it
     * is {@code FileInputStream(FileDescriptor.in)} (the second article's "unbuffered operation")
     *
     * @throws IOException if it cannot be opened
     */
    InputStream rawStream() throws IOException;

    /**
     * {@return a blocking channel}: a {@code SocketChannel}, {@code FileChannel}, or standard input's
     * channel
     *
     * @throws IOException if it cannot be opened
     */
    ReadableByteChannel channel() throws IOException;

    /**
     * {@return a channel in non-blocking mode where the transport has one}: the socket channel, or on
     * Linux standard input as a {@link dev.wirespeed.linux.NativePipe} (whose mode is put back when the
     * source closes); a file's channel, which cannot wait, as it is
     *
     * @throws IOException if it cannot be opened or switched
     */
    default ReadableByteChannel nonBlockingChannel() throws IOException {
        ReadableByteChannel channel = channel();
        if (channel instanceof java.nio.channels.SelectableChannel selectable) {
            selectable.configureBlocking(false);
        }
        return channel;
    }

    /**
     * {@return the TCP address to connect to}, for clients that open their own socket (the Netty peer)
     *
     * @throws UnsupportedOperationException for every transport but tcp
     */
    default java.net.InetSocketAddress tcpAddress() {
        throw new UnsupportedOperationException("this strategy needs --transport tcp");
    }

    /**
     * {@return the socket address to connect to}, for clients that connect from an event loop
     *
     * @throws UnsupportedOperationException for every transport but tcp and unix
     */
    default java.net.SocketAddress socketAddress() {
        throw new UnsupportedOperationException("this strategy needs --transport tcp or unix");
    }

    /**
     * {@return the TLS a client that opens its own connection speaks to the server, or null for plaintext}
     * Only the strategies that {@linkplain Strategies#speaksTls() speak TLS} are given a source with TLS.
     */
    default dev.wirespeed.tls.TlsSettings tls() {
        return null;
    }

    /**
     * {@return a blocking {@code NativeSocket} connected to the server}, for the native strategies
     *
     * @throws IOException if it cannot connect (the {@code NativeIoException} names the errno)
     * @throws UnsupportedOperationException for every transport but tcp and unix
     */
    default dev.wirespeed.linux.NativeSocket nativeSocket() throws IOException {
        throw new UnsupportedOperationException("this strategy needs --transport tcp or unix");
    }

    /**
     * Makes a read blocked on this source return (with an error or end of stream), from another thread:
     * closes what it opened, or shuts a native socket's input down (closing a descriptor under a blocked
     * {@code read(2)} would not wake it). For {@code --read-timeout}.
     */
    default void abort() {
        try {
            close();
        } catch (IOException e) {
            // aborting: the reader reports what happened
        }
    }

    /**
     * Adds a resource a strategy opened itself (the Netty peer's channel) to those {@link #abort()}
     * closes.
     *
     * @param resource closed on abort
     */
    default void closeOnAbort(Closeable resource) {
    }
}
