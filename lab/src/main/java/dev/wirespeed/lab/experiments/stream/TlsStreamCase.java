package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.CliName;
import dev.wirespeed.lab.result.Role;
import dev.wirespeed.lab.server.ServerImpl;
import dev.wirespeed.linux.tls.OpenSsl;
import java.util.ArrayList;
import java.util.List;

/**
 * A row of {@code stream-tls}: who serves the stream over TLS ({@code wirespeed server --loop --tls}),
 * and on which kind of engine.
 *
 * @param server the server
 * @param engine the kind of engine it encrypts with
 */
public record TlsStreamCase(Server server, Engine engine) {
    /** The servers, by the {@code server --loop --impl} that runs each. */
    public enum Server {
        /** The library's {@code FrameServer} over epoll through FFM, {@code LoopStreams} writing. */
        LOOP_EPOLL(ServerImpl.NATIVE, Role.LIBRARY, "wirespeed FrameServer over epoll"),
        /** The same over io_uring through FFM. */
        LOOP_URING(ServerImpl.URING, Role.LIBRARY, "wirespeed FrameServer over io_uring"),
        /** Netty's epoll server, {@code SslHandler} first, {@code NettyStreams} writing. */
        NETTY(ServerImpl.NETTY, Role.PEER, "Netty epoll, SslHandler");

        private final ServerImpl impl;
        private final Role role;
        private final String label;

        Server(ServerImpl impl, Role role, String label) {
            this.impl = impl;
            this.role = role;
            this.label = label;
        }

        /** {@return the {@code server --impl} that runs it} */
        public ServerImpl impl() {
            return impl;
        }
    }

    /** The kinds of engine; OpenSSL is the library's OpenSSL 3 through FFM, or Netty's BoringSSL. */
    public enum Engine implements CliName {
        /** The JDK's {@code SSLEngine} (Netty's JDK provider). */
        JDK("JDK engine"),
        /** OpenSSL: the library's OpenSSL 3 through FFM; Netty's OpenSSL provider (BoringSSL, netty-tcnative). */
        OPENSSL("OpenSSL engine");

        private final String label;

        Engine(String label) {
            this.label = label;
        }

        /** {@return how tables name it} */
        public String label() {
            return label;
        }
    }

    /** {@return every row, in table order: the library's, then Netty's, each on the JDK's engine, then OpenSSL} */
    public static List<TlsStreamCase> all() {
        List<TlsStreamCase> rows = new ArrayList<>();
        for (Server server : Server.values()) {
            for (Engine engine : Engine.values()) {
                rows.add(new TlsStreamCase(server, engine));
            }
        }
        return rows;
    }

    /** {@return the row's name in tables and results} */
    public String name() {
        return server.label + ", " + engine.label;
    }

    /** {@return whose code serves} */
    public Role role() {
        return server.role;
    }

    /** {@return whether Netty serves it} */
    public boolean netty() {
        return server.role == Role.PEER;
    }

    /** {@return null where this machine can run the row, else what is missing} */
    public String unavailable() {
        String why = server.impl.unavailable();
        if (why != null || engine == Engine.JDK) {
            return why;
        }
        if (netty()) {
            return io.netty.handler.ssl.OpenSsl.isAvailable() ? null : "Netty's OpenSSL (netty-tcnative) did not load: "
                    + io.netty.handler.ssl.OpenSsl.unavailabilityCause();
        }
        return OpenSsl.isAvailable() ? null : "OpenSSL 3 through FFM is unusable: " + OpenSsl.unavailableReason();
    }
}
