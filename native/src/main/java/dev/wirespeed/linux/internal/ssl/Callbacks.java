package dev.wirespeed.linux.internal.ssl;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The two functions OpenSSL calls back during a handshake, as up-call stubs made once per JVM: the
 * server's ALPN choice and certificate verification. An exception must not leave an up-call (the JVM
 * would end), so each catches everything and answers as a refusal.
 */
@SuppressWarnings("restricted")
final class Callbacks {
    private Callbacks() {
    }

    /** Made on first use. */
    private static final class Stubs {
        static final MemorySegment ALPN_SELECT;
        static final MemorySegment VERIFY;

        static {
            Linker linker = Linker.nativeLinker();
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            try {
                ALPN_SELECT = linker.upcallStub(lookup.findStatic(Callbacks.class, "selectAlpn", MethodType.methodType(
                        int.class, long.class, long.class, long.class, long.class, int.class, long.class)),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                        Arena.global());
                VERIFY = linker.upcallStub(lookup.findStatic(Callbacks.class, "verify", MethodType.methodType(
                        int.class, int.class, long.class)),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG),
                        Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** {@return the address of the ALPN selection callback, {@code SSL_CTX_alpn_select_cb_func}} */
    static long alpnSelect() {
        return Stubs.ALPN_SELECT.address();
    }

    /** {@return the address of the verification callback, {@code SSL_verify_cb}} */
    static long verify() {
        return Stubs.VERIFY.address();
    }

    /**
     * Picks the first of the server's protocols that the client offers, as {@code SSL_select_next_proto}
     * does with the server's list first; none in common refuses the handshake ({@code no_application_protocol}),
     * as the JDK's engine does.
     *
     * @param ssl the connection
     * @param out where to put the address of the chosen name
     * @param outLength where to put its length (one byte)
     * @param offer the client's list, in wire format
     * @param offerLength its length
     * @param choices the server's: an {@code int} count of bytes, then the wire format ({@link SslContext})
     * @return {@code SSL_TLSEXT_ERR_OK} or {@code SSL_TLSEXT_ERR_ALERT_FATAL}
     */
    static int selectAlpn(long ssl, long out, long outLength, long offer, int offerLength, long choices) {
        try {
            int n = LibSsl.at(choices, Integer.BYTES).get(ValueLayout.JAVA_INT, 0);
            MemorySegment server = LibSsl.at(choices + Integer.BYTES, n);
            MemorySegment client = LibSsl.at(offer, Integer.toUnsignedLong(offerLength));
            for (long s = 0; s < n; s += 1 + Byte.toUnsignedInt(server.get(ValueLayout.JAVA_BYTE, s))) {
                int sl = Byte.toUnsignedInt(server.get(ValueLayout.JAVA_BYTE, s));
                for (long c = 0; c < client.byteSize(); c += 1 + Byte.toUnsignedInt(client.get(ValueLayout.JAVA_BYTE, c))) {
                    int cl = Byte.toUnsignedInt(client.get(ValueLayout.JAVA_BYTE, c));
                    if (cl == sl && c + 1 + cl <= client.byteSize()
                            && MemorySegment.mismatch(server, s + 1, s + 1 + sl, client, c + 1, c + 1 + cl) == -1) {
                        LibSsl.at(out, Long.BYTES).set(ValueLayout.JAVA_LONG, 0, offer + c + 1);
                        LibSsl.at(outLength, 1).set(ValueLayout.JAVA_BYTE, 0, (byte) cl);
                        return LibSsl.SSL_TLSEXT_ERR_OK;
                    }
                }
            }
            return LibSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
        } catch (Throwable t) {
            return LibSsl.SSL_TLSEXT_ERR_ALERT_FATAL;
        }
    }

    /**
     * OpenSSL's verdict, kept: where it refuses, the engine handshaking on this thread is told the error
     * and the peer's own certificate, to say in its exception what was expected and what came.
     *
     * @param ok OpenSSL's verdict so far, 1 or 0
     * @param storeContext the {@code X509_STORE_CTX}
     * @return {@code ok}
     */
    static int verify(int ok, long storeContext) {
        if (ok == 1) {
            return 1;
        }
        try {
            OpenSslEngine engine = OpenSslEngine.HANDSHAKING.get();
            if (engine != null) {
                long leaf = LibSsl.storeContextCert(storeContext);
                engine.refused(LibSsl.storeContextError(storeContext), leaf == 0 ? null : LibSsl.der(leaf));
            }
        } catch (Throwable t) {
            // the refusal stands; the exception will only say less
        }
        return 0;
    }
}
