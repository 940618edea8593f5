package dev.wirespeed.tls;

import dev.wirespeed.benchmark.CLibrary;
import dev.wirespeed.linux.tls.OpenSsl;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Question: what does a TLS engine alone cost per record of one 100-byte frame, wrapped or unwrapped,
 * for each engine the lab's servers run on: how much of a TLS echo server's CPU per frame is its
 * engine's, and how much its loop's?
 *
 * <p>Two engines of one kind, a client and a server, talk in memory: each operation is an echo of one
 * 108-byte frame (the lab's {@code many} frame), the client's wrap, the server's unwrap and wrap, the
 * client's unwrap, so four record operations ({@code @OperationsPerInvocation(4)}): the score is the
 * cost of one wrap or unwrap, on average, with no socket and no loop. TLS 1.3 with
 * {@code TLS_AES_128_GCM_SHA256} for every kind (BoringSSL's TLS 1.3 suites cannot be chosen, and its
 * client offers that one first; the others are told to use it, and setup checks what was agreed), a
 * P-256 identity.
 *
 * <ul>
 *   <li>{@code jdk}: the JDK's {@code SSLEngine} (the library's default engine, and Netty's JDK
 *       provider's), on heap buffers, as the library gives it.
 *   <li>{@code openssl}: the native module's OpenSSL 3 through FFM ({@code OpenSsl.engine()}), on direct
 *       buffers.
 *   <li>{@code netty-openssl}: Netty's OpenSSL provider ({@code netty-tcnative-boringssl-static}: BoringSSL
 *       through JNI), on direct buffers.
 *   <li>{@code c-openssl}: the system's OpenSSL 3 driven from C ({@code tlsecho.c}, compiled with {@code cc
 *       -O2} at setup) with the calls the native module's engine makes, one down-call per echo: what
 *       OpenSSL itself costs, so that {@code openssl} less this is the engine's Java and its down-calls.
 * </ul>
 *
 * <p>Run: {@code ./mvnw -q -DskipTests package -pl benchmarks -am && taskset -c 1 java -cp
 * "benchmarks/target/wirespeed-benchmarks-0.1.0-SNAPSHOT.jar:benchmarks/target/lib/*"
 * org.openjdk.jmh.Main TlsEngineCostPerRecord}. The {@code openssl} kind needs {@code libssl.so.3}; setup
 * fails saying so where it is missing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-XX:+UseParallelGC", "--enable-native-access=ALL-UNNAMED"})
public class TlsEngineCostPerRecord {
    private static final int FRAME = 108;
    /** The suite every kind uses. */
    private static final String SUITE = "TLS_AES_128_GCM_SHA256";

    @Param({"jdk", "openssl", "netty-openssl", "c-openssl"})
    String engine;

    /** {@code tls_echo(long n)} of {@code tlsecho.c}, for {@code c-openssl}; else null. */
    private MethodHandle cEcho;

    private SSLEngine client;
    private SSLEngine server;
    private ByteBuffer request;
    private ByteBuffer toServer;
    private ByteBuffer toClient;
    private ByteBuffer serverPlain;
    private ByteBuffer clientPlain;

    /** Makes the two engines, their buffers, and their handshake. */
    @Setup
    public void setUp() throws IOException, GeneralSecurityException {
        Path dir = Files.createTempDirectory("tls-engine-cost");
        Path cert = copy(dir, "server.pem");
        Path key = copy(dir, "server.key");
        Path ca = copy(dir, "ca.pem");
        boolean direct;
        switch (engine) {
            case "jdk", "openssl" -> {
                TlsEngineFactory factory = engine.equals("jdk") ? TlsEngineFactory.jdk() : OpenSsl.engine();
                if (engine.equals("openssl") && !OpenSsl.isAvailable()) {
                    throw new IllegalStateException("engine=openssl: " + OpenSsl.unavailableReason());
                }
                TlsSettings serverSettings = TlsSettings.builder().identity(cert, key).engine(factory).build();
                TlsSettings clientSettings = TlsSettings.builder().trust(Pem.certificates(ca)).engine(factory).build();
                server = factory.context(serverSettings, false).newEngine(null, 0);
                client = factory.context(clientSettings, true).newEngine("localhost", 443);
                client.setEnabledCipherSuites(new String[] {SUITE});
                direct = engine.equals("openssl");
            }
            case "netty-openssl" -> {
                if (!io.netty.handler.ssl.OpenSsl.isAvailable()) {
                    throw new IllegalStateException("engine=netty-openssl: "
                            + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
                }
                SslContext s = SslContextBuilder.forServer(cert.toFile(), key.toFile()).sslProvider(SslProvider.OPENSSL)
                        .protocols("TLSv1.3").build();
                SslContext c = SslContextBuilder.forClient().trustManager(ca.toFile()).sslProvider(SslProvider.OPENSSL)
                        .protocols("TLSv1.3").build();
                server = s.newEngine(ByteBufAllocator.DEFAULT);
                client = c.newEngine(ByteBufAllocator.DEFAULT, "localhost", 443);
                direct = true;
            }
            case "c-openssl" -> {
                setUpC(cert, key, ca);
                return;
            }
            default -> throw new IllegalArgumentException("engine=" + engine
                    + ": jdk, openssl, netty-openssl or c-openssl");
        }
        int packet = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
        int app = Math.max(client.getSession().getApplicationBufferSize(), server.getSession().getApplicationBufferSize());
        request = allocate(FRAME, direct).put(new byte[FRAME]).flip();
        toServer = allocate(packet, direct);
        toClient = allocate(packet, direct);
        serverPlain = allocate(app, direct);
        clientPlain = allocate(app, direct);
        handshake();
        echoJava(); // and what followed the handshake (a session ticket) read
        String agreed = server.getSession().getCipherSuite();
        if (!SUITE.equals(agreed)) {
            throw new IllegalStateException("engine=" + engine + " agreed on " + agreed + ", not " + SUITE);
        }
    }

    /** {@code c-openssl}: compiles {@code tlsecho.c} against the system's OpenSSL and makes its handshake. */
    @SuppressWarnings("restricted") // links the functions of the library just compiled
    private void setUpC(Path cert, Path key, Path ca) throws IOException {
        SymbolLookup c;
        try {
            c = CLibrary.compile(TlsEngineCostPerRecord.class, "tlsecho.c", "ssl", "crypto");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compiling tlsecho.c", e);
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle setup = linker.downcallHandle(c.findOrThrow("tls_setup"), FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS));
        cEcho = linker.downcallHandle(c.findOrThrow("tls_echo"), FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                ValueLayout.JAVA_LONG));
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) setup.invokeExact(arena.allocateFrom(cert.toString()), arena.allocateFrom(key.toString()),
                    arena.allocateFrom(ca.toString()), arena.allocateFrom(SUITE));
            if (rc != 0) {
                throw new IllegalStateException("tlsecho.c's handshake did not finish with " + SUITE);
            }
        } catch (Throwable t) {
            throw t instanceof RuntimeException r ? r : new IllegalStateException(t);
        }
    }

    /** {@return the bytes the client read back} One echo of a frame: four record operations. */
    @Benchmark
    @OperationsPerInvocation(4)
    public long echo() throws Throwable {
        if (cEcho != null) {
            return (long) cEcho.invokeExact(1L); // one down-call per echo: a few ns over four records
        }
        return echoJava();
    }

    private int echoJava() throws SSLException {
        request.rewind();
        toServer.clear();
        client.wrap(request, toServer);
        toServer.flip();
        serverPlain.clear();
        server.unwrap(toServer, serverPlain);
        serverPlain.flip();
        toClient.clear();
        server.wrap(serverPlain, toClient);
        toClient.flip();
        clientPlain.clear();
        // A session ticket the server sent after the handshake comes first, once: read on.
        while (toClient.hasRemaining() && clientPlain.position() < FRAME) {
            SSLEngineResult r = client.unwrap(toClient, clientPlain);
            if (r.bytesConsumed() == 0) {
                throw new SSLException("the client's unwrap took nothing: " + r);
            }
        }
        if (clientPlain.position() != FRAME) {
            throw new SSLException("the echo came back with " + clientPlain.position() + " bytes of " + FRAME);
        }
        return clientPlain.position();
    }

    private void handshake() throws SSLException {
        client.beginHandshake();
        server.beginHandshake();
        ByteBuffer empty = ByteBuffer.allocate(0);
        for (int steps = 0; steps < 1_000; steps++) {
            boolean done = client.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                    && server.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING;
            if (done && steps > 0 && toServer.position() == 0 && toClient.position() == 0) {
                return; // each side has read all the other wrote
            }
            step(client, empty, toServer, toClient, clientPlain);
            step(server, empty, toClient, toServer, serverPlain);
        }
        throw new SSLException("the in-memory handshake did not end: client " + client.getHandshakeStatus()
                + ", server " + server.getHandshakeStatus());
    }

    /** One step of one side: its tasks, a wrap into {@code out}, an unwrap of what {@code in} holds. */
    private static void step(SSLEngine e, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer plain)
            throws SSLException {
        for (Runnable task; (task = e.getDelegatedTask()) != null; ) {
            task.run();
        }
        e.wrap(empty, out);
        in.flip();
        plain.clear();
        e.unwrap(in, plain);
        in.compact();
        for (Runnable task; (task = e.getDelegatedTask()) != null; ) {
            task.run();
        }
    }

    private static ByteBuffer allocate(int n, boolean direct) {
        return direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
    }

    private static Path copy(Path dir, String name) throws IOException {
        try (InputStream in = TlsEngineCostPerRecord.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("resource dev/wirespeed/tls/" + name + " missing from the benchmarks jar");
            }
            Path file = dir.resolve(name);
            Files.copy(in, file);
            return file;
        }
    }
}
