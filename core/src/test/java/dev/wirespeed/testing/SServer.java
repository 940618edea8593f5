package dev.wirespeed.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An {@code openssl s_server} process on a port of loopback the kernel chose ({@code -accept 127.0.0.1:0}),
 * ready once it printed {@code ACCEPT 127.0.0.1:port}: its standard output and error are read on threads
 * of their own (so that neither pipe fills and stops it) into buffers that the waits here look at, each
 * wait with a deadline of {@value #WAIT_SECONDS} s; {@link #close} kills it.
 *
 * <p>Without {@code -quiet}, which would print nothing, not even the port, s_server prints its port on
 * standard output before it accepts, and after each handshake a summary ({@code -rev}: {@code
 * Protocol version: TLSv1.3}, {@code Peer certificate: CN = ...}) and {@code CONNECTION CLOSED} on
 * standard error; in its default mode the connection's plaintext comes on standard output after a
 * summary there, and its standard input takes commands ({@code r}: renegotiate).
 *
 * <p>Thread safety: the buffers are guarded by this; the rest is the test's thread.
 */
public final class SServer implements AutoCloseable {
    /** How long any one wait (the port, a line, some bytes) may take. */
    static final long WAIT_SECONDS = 20;
    private static final Pattern ACCEPT = Pattern.compile("^ACCEPT 127\\.0\\.0\\.1:(\\d+)$", Pattern.MULTILINE);

    private final List<String> command;
    private final Process process;
    /** Everything on its standard output and error so far. */
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final int port;

    /**
     * Starts {@code openssl s_server -accept 127.0.0.1:0} with {@code args} and waits until it listens.
     *
     * @param args its other arguments: the certificate, the mode, the protocol
     */
    public SServer(String... args) throws IOException, InterruptedException {
        command = new ArrayList<>(List.of("openssl", "s_server", "-accept", "127.0.0.1:0"));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).start();
        drain("s_server-stdout", process.getInputStream(), stdout);
        drain("s_server-stderr", process.getErrorStream(), stderr);
        String[] port = {null};
        await(() -> {
            Matcher m = ACCEPT.matcher(text(stdout));
            port[0] = m.find() ? m.group(1) : null;
            return port[0] != null || !process.isAlive();
        }, "ACCEPT 127.0.0.1:port on its standard output");
        if (port[0] == null) {
            throw new AssertionError("s_server ended before it listened; " + this);
        }
        this.port = Integer.parseInt(port[0]);
    }

    /** {@return the port it listens on} */
    public int port() {
        return port;
    }

    /** Copies {@code in} into {@code to} until its end, on a daemon thread; waiters are told of each piece. */
    private void drain(String name, InputStream in, ByteArrayOutputStream to) {
        Thread.ofPlatform().daemon().name(name).start(() -> {
            byte[] b = new byte[8192];
            try (in) {
                for (int n; (n = in.read(b)) > 0; ) {
                    synchronized (this) {
                        to.write(b, 0, n);
                        notifyAll();
                    }
                }
            } catch (IOException ended) {
                // killed: what came is kept
            }
        });
    }

    private synchronized String text(ByteArrayOutputStream b) {
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /** {@return the first whole line of its standard error that {@code line} matches, once one does} */
    public String awaitErrorLine(Predicate<String> line, String what) throws InterruptedException {
        String[] found = {null};
        await(() -> {
            String text = text(stderr);
            found[0] = text.substring(0, text.lastIndexOf('\n') + 1).lines().filter(line).findFirst().orElse(null);
            return found[0] != null;
        }, what + " on its standard error");
        return found[0];
    }

    /** Waits until its standard output holds {@code bytes}, anywhere in it. */
    public void awaitOutput(byte[] bytes, String what) throws InterruptedException {
        String wanted = new String(bytes, StandardCharsets.ISO_8859_1);
        await(() -> text(stdout).contains(wanted), what + " on its standard output");
    }

    /** Writes {@code text} to its standard input: a command, in its default mode. */
    public void command(String text) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write(text.getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    /** {@return what it wrote on standard error so far} */
    public String errors() {
        return text(stderr);
    }

    private interface Condition {
        boolean holds();
    }

    private synchronized void await(Condition condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.holds()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no " + what + " within " + WAIT_SECONDS + " s; " + this);
            }
            TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
        }
    }

    /** Kills it: a FIN, without a close_notify, on any connection it has open. */
    @Override
    public void close() throws InterruptedIOException {
        process.destroyForcibly();
        try {
            if (!process.waitFor(WAIT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("s_server still running " + WAIT_SECONDS + " s after it was killed; " + this);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while s_server ended");
        }
    }

    @Override
    public String toString() {
        String out = text(stdout);
        return String.join(" ", command) + " (stdout: " + (out.length() > 2000 ? out.substring(0, 2000) + "..." : out)
                + "; stderr: " + errors() + ")";
    }
}
