package dev.wirespeed.linux.internal.ssl;

import dev.wirespeed.linux.internal.sys.LibC;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * OpenSSL 3's {@code libssl.so.3} and {@code libcrypto.so.3}, found by name at run time through the
 * dynamic linker's search path, and the functions this package calls. Nothing is shipped: where the
 * libraries are absent, too old, or lack a function, {@link #UNUSABLE} says why and every handle is null.
 *
 * <p>Pointers ({@code SSL *}, {@code BIO *}, buffers) travel as addresses in {@code long}s, as in
 * {@link LibC}: no segment object per call on the data path. Each wrapper below is one down-call; none
 * captures {@code errno} (OpenSSL keeps its own error queue, per thread, read by {@link #errors()}).
 */
@SuppressWarnings("restricted")
public final class LibSsl {
    /** The library names looked up. */
    public static final String SSL_LIBRARY = "libssl.so.3";
    /** The library names looked up. */
    public static final String CRYPTO_LIBRARY = "libcrypto.so.3";

    // ssl.h, tls1.h, prov_ssl.h, bio.h, x509_vfy.h of OpenSSL 3.0
    public static final int SSL_ERROR_NONE = 0;
    public static final int SSL_ERROR_SSL = 1;
    public static final int SSL_ERROR_WANT_READ = 2;
    public static final int SSL_ERROR_WANT_WRITE = 3;
    public static final int SSL_ERROR_SYSCALL = 5;
    public static final int SSL_ERROR_ZERO_RETURN = 6;
    public static final int SSL_VERIFY_NONE = 0;
    public static final int SSL_VERIFY_PEER = 1;
    public static final int SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 2;
    public static final int SSL_CTRL_EXTRA_CHAIN_CERT = 14;
    public static final int SSL_CTRL_MODE = 33;
    public static final int SSL_CTRL_SET_SESS_CACHE_MODE = 44;
    public static final int SSL_CTRL_SET_TLSEXT_HOSTNAME = 55;
    public static final int SSL_CTRL_SET_MIN_PROTO_VERSION = 123;
    public static final int SSL_CTRL_SET_MAX_PROTO_VERSION = 124;
    public static final int TLSEXT_NAMETYPE_HOST_NAME = 0;
    public static final int SSL_TLSEXT_ERR_OK = 0;
    public static final int SSL_TLSEXT_ERR_ALERT_FATAL = 2;
    public static final int SSL_TLSEXT_ERR_NOACK = 3;
    public static final int TLS1_2_VERSION = 0x0303;
    public static final int TLS1_3_VERSION = 0x0304;
    public static final long SSL_OP_NO_TICKET = 1L << 14;
    public static final long SSL_OP_NO_COMPRESSION = 1L << 17;
    public static final long SSL_OP_CIPHER_SERVER_PREFERENCE = 1L << 22;
    public static final long SSL_OP_NO_RENEGOTIATION = 1L << 30;
    public static final long SSL_MODE_RELEASE_BUFFERS = 0x10;
    public static final int SSL_SENT_SHUTDOWN = 1;
    public static final int SSL_RECEIVED_SHUTDOWN = 2;
    public static final int BIO_CTRL_PENDING = 10;
    public static final int BIO_C_GET_BUF_MEM_PTR = 115;
    public static final int X509_V_OK = 0;
    public static final int X509_V_ERR_HOSTNAME_MISMATCH = 62;
    public static final int X509_V_ERR_EMAIL_MISMATCH = 63;
    public static final int X509_V_ERR_IP_ADDRESS_MISMATCH = 64;
    public static final int X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS = 0x4;
    /** {@code ERR_LIB_SSL}, the library of an error code's top byte. */
    public static final int ERR_LIB_SSL = 20;
    /** {@code SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE}. */
    public static final int SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE = 199;
    /** OpenSSL 3.0.0's {@code OPENSSL_VERSION_NUMBER}: older libraries are refused. */
    static final long MIN_VERSION = 0x30000000L;

    /** The functions linked, by library: a library that lacks one is refused, naming it. */
    static final List<String> CRYPTO_FUNCTIONS = List.of("OpenSSL_version_num", "OpenSSL_version", "ERR_get_error",
            "ERR_error_string_n", "ERR_clear_error", "BIO_s_mem", "BIO_new", "BIO_free", "BIO_read", "BIO_write",
            "BIO_ctrl", "d2i_AutoPrivateKey", "d2i_X509", "i2d_X509", "X509_free", "EVP_PKEY_free",
            "X509_STORE_add_cert", "X509_verify_cert_error_string", "X509_STORE_CTX_get0_cert",
            "X509_STORE_CTX_get_error", "X509_VERIFY_PARAM_set1_ip_asc", "X509_get_default_cert_dir", "OPENSSL_sk_num",
            "OPENSSL_sk_value");
    static final List<String> SSL_FUNCTIONS = List.of("TLS_method", "SSL_CTX_new", "SSL_CTX_free", "SSL_CTX_ctrl",
            "SSL_CTX_set_options", "SSL_CTX_use_certificate", "SSL_CTX_use_PrivateKey", "SSL_CTX_check_private_key",
            "SSL_CTX_get_cert_store", "SSL_CTX_set_default_verify_paths", "SSL_CTX_set_verify",
            "SSL_CTX_set_alpn_select_cb", "SSL_CTX_set_num_tickets", "SSL_CTX_set_session_id_context",
            "SSL_CTX_add_client_CA", "SSL_new", "SSL_free", "SSL_set_bio", "SSL_set_connect_state",
            "SSL_set_accept_state", "SSL_do_handshake", "SSL_read", "SSL_write", "SSL_get_error", "SSL_shutdown",
            "SSL_ctrl", "SSL_set_alpn_protos", "SSL_get0_alpn_selected", "SSL_set1_host", "SSL_set_hostflags",
            "SSL_get0_param", "SSL_get_verify_result", "SSL_get_version", "SSL_get_current_cipher",
            "SSL_CIPHER_standard_name", "SSL_get1_peer_certificate", "SSL_get_peer_cert_chain", "SSL_set_verify",
            "SSL_get_ciphers", "SSL_set_cipher_list", "SSL_set_ciphersuites", "OPENSSL_cipher_name", "SSL_pending",
            "SSL_CTX_set_cipher_list", "SSL_CTX_set_ciphersuites", "SSL_CTX_get_ciphers", "SSL_set0_rbio",
            "SSL_set0_wbio");

    // Before the static block below, which uses them.
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout P = ValueLayout.JAVA_LONG; // a pointer, as its address
    private static final ValueLayout I = ValueLayout.JAVA_INT;
    private static final ValueLayout L = ValueLayout.JAVA_LONG;

    /** The libraries found, or null where unusable. */
    private static final Libraries LIBRARIES;
    /** Why OpenSSL cannot be used in this JVM, or null where it can. */
    public static final String UNUSABLE;

    static {
        Libraries found = null;
        String reason;
        try {
            found = find(SSL_LIBRARY, CRYPTO_LIBRARY);
            reason = null;
        } catch (UnusableException e) {
            reason = e.getMessage();
        }
        LIBRARIES = found;
        UNUSABLE = reason;
    }

    private static final MethodHandle OPENSSL_VERSION = crypto("OpenSSL_version", P, I);
    private static final MethodHandle ERR_GET_ERROR = crypto("ERR_get_error", L);
    private static final MethodHandle ERR_ERROR_STRING_N = crypto("ERR_error_string_n", null, L, P, L);
    private static final MethodHandle ERR_CLEAR_ERROR = crypto("ERR_clear_error", null);
    private static final MethodHandle BIO_S_MEM = crypto("BIO_s_mem", P);
    private static final MethodHandle BIO_NEW = crypto("BIO_new", P, P);
    private static final MethodHandle BIO_FREE = crypto("BIO_free", I, P);
    private static final MethodHandle BIO_READ = crypto("BIO_read", I, P, P, I);
    private static final MethodHandle BIO_WRITE = crypto("BIO_write", I, P, P, I);
    private static final MethodHandle BIO_CTRL = crypto("BIO_ctrl", L, P, I, L, P);
    private static final MethodHandle D2I_AUTO_PRIVATE_KEY = crypto("d2i_AutoPrivateKey", P, P, P, L);
    private static final MethodHandle D2I_X509 = crypto("d2i_X509", P, P, P, L);
    private static final MethodHandle I2D_X509 = crypto("i2d_X509", I, P, P);
    private static final MethodHandle X509_FREE = crypto("X509_free", null, P);
    private static final MethodHandle EVP_PKEY_FREE = crypto("EVP_PKEY_free", null, P);
    private static final MethodHandle X509_STORE_ADD_CERT = crypto("X509_STORE_add_cert", I, P, P);
    private static final MethodHandle X509_VERIFY_CERT_ERROR_STRING = crypto("X509_verify_cert_error_string", P, L);
    private static final MethodHandle X509_STORE_CTX_GET0_CERT = crypto("X509_STORE_CTX_get0_cert", P, P);
    private static final MethodHandle X509_STORE_CTX_GET_ERROR = crypto("X509_STORE_CTX_get_error", I, P);
    private static final MethodHandle X509_VERIFY_PARAM_SET1_IP_ASC = crypto("X509_VERIFY_PARAM_set1_ip_asc", I, P, P);
    private static final MethodHandle X509_GET_DEFAULT_CERT_DIR = crypto("X509_get_default_cert_dir", P);
    private static final MethodHandle SK_NUM = crypto("OPENSSL_sk_num", I, P);
    private static final MethodHandle SK_VALUE = crypto("OPENSSL_sk_value", P, P, I);

    private static final MethodHandle TLS_METHOD = ssl("TLS_method", P);
    private static final MethodHandle SSL_CTX_NEW = ssl("SSL_CTX_new", P, P);
    private static final MethodHandle SSL_CTX_FREE = ssl("SSL_CTX_free", null, P);
    private static final MethodHandle SSL_CTX_CTRL = ssl("SSL_CTX_ctrl", L, P, I, L, P);
    private static final MethodHandle SSL_CTX_SET_OPTIONS = ssl("SSL_CTX_set_options", L, P, L);
    private static final MethodHandle SSL_CTX_USE_CERTIFICATE = ssl("SSL_CTX_use_certificate", I, P, P);
    private static final MethodHandle SSL_CTX_USE_PRIVATE_KEY = ssl("SSL_CTX_use_PrivateKey", I, P, P);
    private static final MethodHandle SSL_CTX_CHECK_PRIVATE_KEY = ssl("SSL_CTX_check_private_key", I, P);
    private static final MethodHandle SSL_CTX_GET_CERT_STORE = ssl("SSL_CTX_get_cert_store", P, P);
    private static final MethodHandle SSL_CTX_SET_DEFAULT_VERIFY_PATHS = ssl("SSL_CTX_set_default_verify_paths", I, P);
    private static final MethodHandle SSL_CTX_SET_VERIFY = ssl("SSL_CTX_set_verify", null, P, I, P);
    private static final MethodHandle SSL_CTX_SET_ALPN_SELECT_CB = ssl("SSL_CTX_set_alpn_select_cb", null, P, P, P);
    private static final MethodHandle SSL_CTX_SET_NUM_TICKETS = ssl("SSL_CTX_set_num_tickets", I, P, L);
    private static final MethodHandle SSL_CTX_SET_SESSION_ID_CONTEXT = ssl("SSL_CTX_set_session_id_context", I, P, P, I);
    private static final MethodHandle SSL_CTX_ADD_CLIENT_CA = ssl("SSL_CTX_add_client_CA", I, P, P);
    private static final MethodHandle SSL_NEW = ssl("SSL_new", P, P);
    private static final MethodHandle SSL_FREE = ssl("SSL_free", null, P);
    private static final MethodHandle SSL_SET_BIO = ssl("SSL_set_bio", null, P, P, P);
    private static final MethodHandle SSL_SET0_RBIO = ssl("SSL_set0_rbio", null, P, P);
    private static final MethodHandle SSL_SET0_WBIO = ssl("SSL_set0_wbio", null, P, P);
    private static final MethodHandle SSL_SET_CONNECT_STATE = ssl("SSL_set_connect_state", null, P);
    private static final MethodHandle SSL_SET_ACCEPT_STATE = ssl("SSL_set_accept_state", null, P);
    private static final MethodHandle SSL_DO_HANDSHAKE = ssl("SSL_do_handshake", I, P);
    private static final MethodHandle SSL_READ = ssl("SSL_read", I, P, P, I);
    private static final MethodHandle SSL_WRITE = ssl("SSL_write", I, P, P, I);
    private static final MethodHandle SSL_GET_ERROR = ssl("SSL_get_error", I, P, I);
    private static final MethodHandle SSL_SHUTDOWN = ssl("SSL_shutdown", I, P);
    private static final MethodHandle SSL_CTRL = ssl("SSL_ctrl", L, P, I, L, P);
    private static final MethodHandle SSL_SET_ALPN_PROTOS = ssl("SSL_set_alpn_protos", I, P, P, I);
    private static final MethodHandle SSL_GET0_ALPN_SELECTED = ssl("SSL_get0_alpn_selected", null, P, P, P);
    private static final MethodHandle SSL_SET1_HOST = ssl("SSL_set1_host", I, P, P);
    private static final MethodHandle SSL_SET_HOSTFLAGS = ssl("SSL_set_hostflags", null, P, I);
    private static final MethodHandle SSL_GET0_PARAM = ssl("SSL_get0_param", P, P);
    private static final MethodHandle SSL_GET_VERIFY_RESULT = ssl("SSL_get_verify_result", L, P);
    private static final MethodHandle SSL_GET_VERSION = ssl("SSL_get_version", P, P);
    private static final MethodHandle SSL_GET_CURRENT_CIPHER = ssl("SSL_get_current_cipher", P, P);
    private static final MethodHandle SSL_CIPHER_STANDARD_NAME = ssl("SSL_CIPHER_standard_name", P, P);
    private static final MethodHandle SSL_GET1_PEER_CERTIFICATE = ssl("SSL_get1_peer_certificate", P, P);
    private static final MethodHandle SSL_GET_PEER_CERT_CHAIN = ssl("SSL_get_peer_cert_chain", P, P);
    private static final MethodHandle SSL_SET_VERIFY = ssl("SSL_set_verify", null, P, I, P);
    private static final MethodHandle SSL_GET_CIPHERS = ssl("SSL_get_ciphers", P, P);
    private static final MethodHandle SSL_SET_CIPHER_LIST = ssl("SSL_set_cipher_list", I, P, P);
    private static final MethodHandle SSL_SET_CIPHERSUITES = ssl("SSL_set_ciphersuites", I, P, P);
    private static final MethodHandle OPENSSL_CIPHER_NAME = ssl("OPENSSL_cipher_name", P, P);
    private static final MethodHandle SSL_PENDING = ssl("SSL_pending", I, P);
    private static final MethodHandle SSL_CTX_SET_CIPHER_LIST = ssl("SSL_CTX_set_cipher_list", I, P, P);
    private static final MethodHandle SSL_CTX_SET_CIPHERSUITES = ssl("SSL_CTX_set_ciphersuites", I, P, P);
    private static final MethodHandle SSL_CTX_GET_CIPHERS = ssl("SSL_CTX_get_ciphers", P, P);

    private LibSsl() {
    }

    /** The two libraries' symbols. */
    record Libraries(SymbolLookup ssl, SymbolLookup crypto, String version) {
    }

    /** A reason not to use OpenSSL, thrown only inside {@link #find}. */
    static final class UnusableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnusableException(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * Finds the libraries by name and checks that they are OpenSSL 3 with every function linked here.
     *
     * @param sslName the file name of libssl, found as {@code dlopen} finds it
     * @param cryptoName libcrypto's
     * @return what was found
     * @throws UnusableException why the libraries cannot be used, in words a user can act on
     */
    static Libraries find(String sslName, String cryptoName) throws UnusableException {
        if (!LibC.LINUX || ValueLayout.ADDRESS.byteSize() != Long.BYTES) {
            throw new UnusableException("OpenSSL through FFM needs Linux on a 64-bit JVM: os.name="
                    + System.getProperty("os.name") + " os.arch=" + System.getProperty("os.arch"));
        }
        SymbolLookup crypto = open(cryptoName);
        SymbolLookup ssl = open(sslName);
        List<String> missing = new ArrayList<>();
        for (String f : CRYPTO_FUNCTIONS) {
            if (crypto.find(f).isEmpty()) {
                missing.add(cryptoName + ":" + f);
            }
        }
        for (String f : SSL_FUNCTIONS) {
            if (ssl.find(f).isEmpty()) {
                missing.add(sslName + ":" + f);
            }
        }
        if (!missing.isEmpty()) {
            throw new UnusableException("the OpenSSL libraries found lack " + missing + ": OpenSSL 3.0 or later is needed");
        }
        try {
            long number = (long) LINKER.downcallHandle(crypto.find("OpenSSL_version_num").orElseThrow(),
                    FunctionDescriptor.of(L)).invokeExact();
            String version = string((long) LINKER.downcallHandle(crypto.find("OpenSSL_version").orElseThrow(),
                    FunctionDescriptor.of(P, I)).invokeExact(0));
            if (number < MIN_VERSION) {
                throw new UnusableException(cryptoName + " is " + version + " (0x" + Long.toHexString(number)
                        + "): OpenSSL 3.0 or later is needed");
            }
            return new Libraries(ssl, crypto, version);
        } catch (UnusableException | RuntimeException | Error e) {
            throw e instanceof UnusableException u ? u : new UnusableException("calling " + cryptoName
                    + " failed: " + e);
        } catch (Throwable t) {
            throw new UnusableException("calling " + cryptoName + " failed: " + t);
        }
    }

    private static SymbolLookup open(String name) throws UnusableException {
        try {
            return SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new UnusableException(name + " was not found by the dynamic linker (" + e.getMessage()
                    + "): install OpenSSL 3's libraries (libssl3 on Debian and Ubuntu, openssl-libs on Fedora), "
                    + "or put their directory in LD_LIBRARY_PATH");
        } catch (IllegalCallerException e) {
            throw new UnusableException("native access is not enabled for this module (" + e.getMessage()
                    + "): run with --enable-native-access=dev.wirespeed.linux, or ALL-UNNAMED on the class path");
        }
    }

    /** {@return OpenSSL's version text, e.g. {@code OpenSSL 3.0.13 30 Jan 2024}, or null where unusable} */
    public static String version() {
        return LIBRARIES == null ? null : LIBRARIES.version();
    }

    private static MethodHandle crypto(String name, MemoryLayout result, MemoryLayout... args) {
        return LIBRARIES == null ? null : link(LIBRARIES.crypto(), name, result, args);
    }

    private static MethodHandle ssl(String name, MemoryLayout result, MemoryLayout... args) {
        return LIBRARIES == null ? null : link(LIBRARIES.ssl(), name, result, args);
    }

    private static MethodHandle link(SymbolLookup lookup, String name, MemoryLayout result, MemoryLayout... args) {
        FunctionDescriptor d = result == null ? FunctionDescriptor.ofVoid(args) : FunctionDescriptor.of(result, args);
        return LINKER.downcallHandle(lookup.find(name).orElseThrow(), d);
    }

    /** {@return the NUL-terminated string at {@code address}, or null for a null pointer} */
    public static String string(long address) {
        return address == 0 ? null : MemorySegment.ofAddress(address).reinterpret(Integer.MAX_VALUE).getString(0);
    }

    /** {@return the {@code n} bytes at {@code address}, as a segment of that size} */
    public static MemorySegment at(long address, long n) {
        return MemorySegment.ofAddress(address).reinterpret(n);
    }

    /** {@return a call that threw, as the error it is}: down-calls throw nothing checked. */
    private static IllegalStateException failed(String call, Throwable t) {
        return new IllegalStateException(call + " down-call failed", t);
    }

    // ---- libcrypto

    /** {@return the text of the OpenSSL version, {@code type} as {@code OpenSSL_version} takes it} */
    static String opensslVersion(int type) {
        try {
            return string((long) OPENSSL_VERSION.invokeExact(type));
        } catch (Throwable t) {
            throw failed("OpenSSL_version", t);
        }
    }

    /**
     * Empties this thread's OpenSSL error queue.
     *
     * @return its errors, oldest first, each as {@code ERR_error_string_n} writes it; empty if none
     */
    public static List<String> errors() {
        List<String> errors = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(256);
            for (long e; (e = (long) ERR_GET_ERROR.invokeExact()) != 0; ) {
                ERR_ERROR_STRING_N.invokeExact(e, text.address(), 256L);
                errors.add(text.getString(0));
            }
        } catch (Throwable t) {
            throw failed("ERR_get_error", t);
        }
        return errors;
    }

    /** {@return the oldest error code in this thread's queue, 0 if none, removing it and leaving the rest} */
    public static long nextError() {
        try {
            return (long) ERR_GET_ERROR.invokeExact();
        } catch (Throwable t) {
            throw failed("ERR_get_error", t);
        }
    }

    /** {@return {@code ERR_error_string_n}'s text of {@code code}} */
    public static String errorString(long code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment text = arena.allocate(256);
            ERR_ERROR_STRING_N.invokeExact(code, text.address(), 256L);
            return text.getString(0);
        } catch (Throwable t) {
            throw failed("ERR_error_string_n", t);
        }
    }

    /** Empties this thread's OpenSSL error queue. */
    public static void clearErrors() {
        try {
            ERR_CLEAR_ERROR.invokeExact();
        } catch (Throwable t) {
            throw failed("ERR_clear_error", t);
        }
    }

    /** {@return a new memory BIO, or 0} */
    public static long newMemoryBio() {
        try {
            return (long) BIO_NEW.invokeExact((long) BIO_S_MEM.invokeExact());
        } catch (Throwable t) {
            throw failed("BIO_new", t);
        }
    }

    /** {@code BIO_free}. */
    public static void bioFree(long bio) {
        try {
            int ignored = (int) BIO_FREE.invokeExact(bio);
        } catch (Throwable t) {
            throw failed("BIO_free", t);
        }
    }

    /** {@return {@code BIO_read}'s count of up to {@code n} bytes into {@code buf}, or 0 or less for none} */
    public static int bioRead(long bio, long buf, int n) {
        try {
            return (int) BIO_READ.invokeExact(bio, buf, n);
        } catch (Throwable t) {
            throw failed("BIO_read", t);
        }
    }

    /** {@return {@code BIO_write}'s count of {@code n} bytes from {@code buf}} */
    public static int bioWrite(long bio, long buf, int n) {
        try {
            return (int) BIO_WRITE.invokeExact(bio, buf, n);
        } catch (Throwable t) {
            throw failed("BIO_write", t);
        }
    }

    /** {@return the bytes waiting in {@code bio} ({@code BIO_ctrl_pending})} */
    public static long bioPending(long bio) {
        try {
            return (long) BIO_CTRL.invokeExact(bio, BIO_CTRL_PENDING, 0L, 0L);
        } catch (Throwable t) {
            throw failed("BIO_ctrl", t);
        }
    }

    /**
     * {@return the bytes a memory BIO has allocated for its buffer}: the {@code max} of its {@code BUF_MEM}
     * ({@code BIO_get_mem_ptr}), whose layout {@code buffer.h} makes public: {@code size_t length; char
     * *data; size_t max; unsigned long flags}
     */
    public static long memoryBioCapacity(long bio) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment slot = arena.allocate(ValueLayout.ADDRESS);
            long rc = (long) BIO_CTRL.invokeExact(bio, BIO_C_GET_BUF_MEM_PTR, 0L, slot.address());
            MemorySegment buf = slot.get(ValueLayout.ADDRESS, 0);
            if (rc <= 0 || buf.address() == 0) {
                throw new IllegalStateException("BIO_get_mem_ptr rc=" + rc + " on a BIO that is no memory BIO");
            }
            return buf.reinterpret(3 * Long.BYTES).get(ValueLayout.JAVA_LONG, 2 * Long.BYTES);
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw failed("BIO_ctrl", t);
        }
    }

    /** {@return the {@code EVP_PKEY} of a DER private key (PKCS#8 or a traditional form) at {@code der}, or 0} */
    public static long privateKey(MemorySegment der, Arena arena) {
        try {
            MemorySegment p = arena.allocate(ValueLayout.JAVA_LONG);
            p.set(ValueLayout.JAVA_LONG, 0, der.address());
            return (long) D2I_AUTO_PRIVATE_KEY.invokeExact(0L, p.address(), der.byteSize());
        } catch (Throwable t) {
            throw failed("d2i_AutoPrivateKey", t);
        }
    }

    /** {@return the {@code X509} of the DER certificate at {@code der}, or 0} */
    public static long x509(MemorySegment der, Arena arena) {
        try {
            MemorySegment p = arena.allocate(ValueLayout.JAVA_LONG);
            p.set(ValueLayout.JAVA_LONG, 0, der.address());
            return (long) D2I_X509.invokeExact(0L, p.address(), der.byteSize());
        } catch (Throwable t) {
            throw failed("d2i_X509", t);
        }
    }

    /** {@return the DER encoding of {@code x509}, or null if it will not encode} */
    public static byte[] der(long x509) {
        try (Arena arena = Arena.ofConfined()) {
            int n = (int) I2D_X509.invokeExact(x509, 0L);
            if (n <= 0) {
                return null;
            }
            MemorySegment out = arena.allocate(n);
            MemorySegment p = arena.allocate(ValueLayout.JAVA_LONG);
            p.set(ValueLayout.JAVA_LONG, 0, out.address());
            int written = (int) I2D_X509.invokeExact(x509, p.address());
            return written == n ? out.toArray(ValueLayout.JAVA_BYTE) : null;
        } catch (Throwable t) {
            throw failed("i2d_X509", t);
        }
    }

    /** {@code X509_free}. */
    public static void x509Free(long x509) {
        try {
            X509_FREE.invokeExact(x509);
        } catch (Throwable t) {
            throw failed("X509_free", t);
        }
    }

    /** {@code EVP_PKEY_free}. */
    public static void pkeyFree(long pkey) {
        try {
            EVP_PKEY_FREE.invokeExact(pkey);
        } catch (Throwable t) {
            throw failed("EVP_PKEY_free", t);
        }
    }

    /** {@return {@code X509_STORE_add_cert}'s 1, or 0} */
    public static int storeAddCert(long store, long x509) {
        try {
            return (int) X509_STORE_ADD_CERT.invokeExact(store, x509);
        } catch (Throwable t) {
            throw failed("X509_STORE_add_cert", t);
        }
    }

    /** {@return the words of verification error {@code code}} */
    public static String verifyErrorString(long code) {
        try {
            return string((long) X509_VERIFY_CERT_ERROR_STRING.invokeExact(code));
        } catch (Throwable t) {
            throw failed("X509_verify_cert_error_string", t);
        }
    }

    /** {@return the certificate being verified: the peer's own} */
    public static long storeContextCert(long storeContext) {
        try {
            return (long) X509_STORE_CTX_GET0_CERT.invokeExact(storeContext);
        } catch (Throwable t) {
            throw failed("X509_STORE_CTX_get0_cert", t);
        }
    }

    /** {@return the verification error found so far} */
    public static int storeContextError(long storeContext) {
        try {
            return (int) X509_STORE_CTX_GET_ERROR.invokeExact(storeContext);
        } catch (Throwable t) {
            throw failed("X509_STORE_CTX_get_error", t);
        }
    }

    /** {@return 1 once {@code param} expects the IP address {@code ip} (a C string), else 0} */
    public static int verifyParamSetIp(long param, long ip) {
        try {
            return (int) X509_VERIFY_PARAM_SET1_IP_ASC.invokeExact(param, ip);
        } catch (Throwable t) {
            throw failed("X509_VERIFY_PARAM_set1_ip_asc", t);
        }
    }

    /** {@return the directory of the default trust} */
    public static String defaultCertDir() {
        try {
            return string((long) X509_GET_DEFAULT_CERT_DIR.invokeExact());
        } catch (Throwable t) {
            throw failed("X509_get_default_cert_dir", t);
        }
    }

    /** {@return the entries of an {@code OPENSSL_STACK}, 0 for a null one} */
    public static int stackSize(long stack) {
        if (stack == 0) {
            return 0;
        }
        try {
            return (int) SK_NUM.invokeExact(stack);
        } catch (Throwable t) {
            throw failed("OPENSSL_sk_num", t);
        }
    }

    /** {@return entry {@code i} of a stack} */
    public static long stackValue(long stack, int i) {
        try {
            return (long) SK_VALUE.invokeExact(stack, i);
        } catch (Throwable t) {
            throw failed("OPENSSL_sk_value", t);
        }
    }

    // ---- libssl: contexts

    /** {@return a new {@code SSL_CTX} for TLS of any version, or 0} */
    public static long ctxNew() {
        try {
            return (long) SSL_CTX_NEW.invokeExact((long) TLS_METHOD.invokeExact());
        } catch (Throwable t) {
            throw failed("SSL_CTX_new", t);
        }
    }

    /** {@code SSL_CTX_free}. */
    public static void ctxFree(long ctx) {
        try {
            SSL_CTX_FREE.invokeExact(ctx);
        } catch (Throwable t) {
            throw failed("SSL_CTX_free", t);
        }
    }

    /** {@return {@code SSL_CTX_ctrl}'s result} */
    public static long ctxCtrl(long ctx, int cmd, long larg, long parg) {
        try {
            return (long) SSL_CTX_CTRL.invokeExact(ctx, cmd, larg, parg);
        } catch (Throwable t) {
            throw failed("SSL_CTX_ctrl", t);
        }
    }

    /** {@return the options now set, after adding {@code options}} */
    public static long ctxSetOptions(long ctx, long options) {
        try {
            return (long) SSL_CTX_SET_OPTIONS.invokeExact(ctx, options);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_options", t);
        }
    }

    /** {@return 1 once the context's certificate is {@code x509}, else 0} */
    public static int ctxUseCertificate(long ctx, long x509) {
        try {
            return (int) SSL_CTX_USE_CERTIFICATE.invokeExact(ctx, x509);
        } catch (Throwable t) {
            throw failed("SSL_CTX_use_certificate", t);
        }
    }

    /** {@return 1 once the context's key is {@code pkey}, else 0} */
    public static int ctxUsePrivateKey(long ctx, long pkey) {
        try {
            return (int) SSL_CTX_USE_PRIVATE_KEY.invokeExact(ctx, pkey);
        } catch (Throwable t) {
            throw failed("SSL_CTX_use_PrivateKey", t);
        }
    }

    /** {@return 1 if the context's key is its certificate's, else 0} */
    public static int ctxCheckPrivateKey(long ctx) {
        try {
            return (int) SSL_CTX_CHECK_PRIVATE_KEY.invokeExact(ctx);
        } catch (Throwable t) {
            throw failed("SSL_CTX_check_private_key", t);
        }
    }

    /** {@return the context's trust store} */
    public static long ctxCertStore(long ctx) {
        try {
            return (long) SSL_CTX_GET_CERT_STORE.invokeExact(ctx);
        } catch (Throwable t) {
            throw failed("SSL_CTX_get_cert_store", t);
        }
    }

    /** {@return 1 once the context trusts OpenSSL's default paths, else 0} */
    public static int ctxSetDefaultVerifyPaths(long ctx) {
        try {
            return (int) SSL_CTX_SET_DEFAULT_VERIFY_PATHS.invokeExact(ctx);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_default_verify_paths", t);
        }
    }

    /** {@code SSL_CTX_set_verify}, {@code callback} an upcall stub's address or 0. */
    public static void ctxSetVerify(long ctx, int mode, long callback) {
        try {
            SSL_CTX_SET_VERIFY.invokeExact(ctx, mode, callback);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_verify", t);
        }
    }

    /** {@code SSL_CTX_set_alpn_select_cb}. */
    public static void ctxSetAlpnSelect(long ctx, long callback, long arg) {
        try {
            SSL_CTX_SET_ALPN_SELECT_CB.invokeExact(ctx, callback, arg);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_alpn_select_cb", t);
        }
    }

    /** {@return 1 once a server sends {@code n} TLS 1.3 session tickets per handshake} */
    public static int ctxSetNumTickets(long ctx, long n) {
        try {
            return (int) SSL_CTX_SET_NUM_TICKETS.invokeExact(ctx, n);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_num_tickets", t);
        }
    }

    /** {@return 1 once the session id context is the {@code n} bytes at {@code sid}} */
    public static int ctxSetSessionIdContext(long ctx, long sid, int n) {
        try {
            return (int) SSL_CTX_SET_SESSION_ID_CONTEXT.invokeExact(ctx, sid, n);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_session_id_context", t);
        }
    }

    /** {@return 1 once a server names {@code x509}'s subject among the issuers it asks client certificates of} */
    public static int ctxAddClientCa(long ctx, long x509) {
        try {
            return (int) SSL_CTX_ADD_CLIENT_CA.invokeExact(ctx, x509);
        } catch (Throwable t) {
            throw failed("SSL_CTX_add_client_CA", t);
        }
    }

    /** {@return 1 once the context's TLS 1.2 suites are {@code list} (a C string of OpenSSL's names), else 0} */
    public static int ctxSetCipherList(long ctx, long list) {
        try {
            return (int) SSL_CTX_SET_CIPHER_LIST.invokeExact(ctx, list);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_cipher_list", t);
        }
    }

    /** {@return 1 once the context's TLS 1.3 suites are {@code list} (a C string of IANA names), else 0} */
    public static int ctxSetCipherSuites(long ctx, long list) {
        try {
            return (int) SSL_CTX_SET_CIPHERSUITES.invokeExact(ctx, list);
        } catch (Throwable t) {
            throw failed("SSL_CTX_set_ciphersuites", t);
        }
    }

    /** {@return the IANA names of the cipher suites the context's connections may agree on, in its order} */
    public static List<String> ctxCipherSuites(long ctx) {
        try {
            long stack = (long) SSL_CTX_GET_CIPHERS.invokeExact(ctx);
            List<String> names = new ArrayList<>();
            for (int i = 0, n = stackSize(stack); i < n; i++) {
                names.add(string((long) SSL_CIPHER_STANDARD_NAME.invokeExact(stackValue(stack, i))));
            }
            return names;
        } catch (Throwable t) {
            throw failed("SSL_CTX_get_ciphers", t);
        }
    }

    // ---- libssl: connections

    /** {@return a new {@code SSL} of {@code ctx}, or 0} */
    public static long sslNew(long ctx) {
        try {
            return (long) SSL_NEW.invokeExact(ctx);
        } catch (Throwable t) {
            throw failed("SSL_new", t);
        }
    }

    /** {@code SSL_free}, which frees its BIOs too. */
    public static void sslFree(long ssl) {
        try {
            SSL_FREE.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_free", t);
        }
    }

    /** {@code SSL_set_bio}: the {@code SSL} owns both from now on. */
    public static void setBio(long ssl, long rbio, long wbio) {
        try {
            SSL_SET_BIO.invokeExact(ssl, rbio, wbio);
        } catch (Throwable t) {
            throw failed("SSL_set_bio", t);
        }
    }

    /** {@code SSL_set0_rbio}: the {@code SSL} owns {@code rbio} from now on, and frees the read BIO it had. */
    public static void set0Rbio(long ssl, long rbio) {
        try {
            SSL_SET0_RBIO.invokeExact(ssl, rbio);
        } catch (Throwable t) {
            throw failed("SSL_set0_rbio", t);
        }
    }

    /** {@code SSL_set0_wbio}: the {@code SSL} owns {@code wbio} from now on, and frees the write BIO it had. */
    public static void set0Wbio(long ssl, long wbio) {
        try {
            SSL_SET0_WBIO.invokeExact(ssl, wbio);
        } catch (Throwable t) {
            throw failed("SSL_set0_wbio", t);
        }
    }

    /** {@code SSL_set_connect_state} or {@code SSL_set_accept_state}. */
    public static void setState(long ssl, boolean client) {
        try {
            if (client) {
                SSL_SET_CONNECT_STATE.invokeExact(ssl);
            } else {
                SSL_SET_ACCEPT_STATE.invokeExact(ssl);
            }
        } catch (Throwable t) {
            throw failed("SSL_set_connect_state", t);
        }
    }

    /** {@return {@code SSL_do_handshake}'s 1 when done, or 0 or less with {@link #getError} to tell why} */
    public static int doHandshake(long ssl) {
        try {
            return (int) SSL_DO_HANDSHAKE.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_do_handshake", t);
        }
    }

    /** {@return {@code SSL_read}'s count into {@code buf}, or 0 or less with {@link #getError} to tell why} */
    public static int read(long ssl, long buf, int n) {
        try {
            return (int) SSL_READ.invokeExact(ssl, buf, n);
        } catch (Throwable t) {
            throw failed("SSL_read", t);
        }
    }

    /** {@return {@code SSL_write}'s count from {@code buf}, or 0 or less with {@link #getError} to tell why} */
    public static int write(long ssl, long buf, int n) {
        try {
            return (int) SSL_WRITE.invokeExact(ssl, buf, n);
        } catch (Throwable t) {
            throw failed("SSL_write", t);
        }
    }

    /** {@return {@code SSL_get_error} of a call that returned {@code ret}} */
    public static int getError(long ssl, int ret) {
        try {
            return (int) SSL_GET_ERROR.invokeExact(ssl, ret);
        } catch (Throwable t) {
            throw failed("SSL_get_error", t);
        }
    }

    /** {@return {@code SSL_shutdown}'s result: 0 once close_notify is queued, 1 if the peer's came too, -1 on failure} */
    public static int shutdown(long ssl) {
        try {
            return (int) SSL_SHUTDOWN.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_shutdown", t);
        }
    }

    /** {@return {@code SSL_ctrl}'s result} */
    public static long ctrl(long ssl, int cmd, long larg, long parg) {
        try {
            return (long) SSL_CTRL.invokeExact(ssl, cmd, larg, parg);
        } catch (Throwable t) {
            throw failed("SSL_ctrl", t);
        }
    }

    /** {@return 0 once the client offers the wire-format protocol list at {@code protos} (sic: 0 is success)} */
    public static int setAlpnProtos(long ssl, long protos, int n) {
        try {
            return (int) SSL_SET_ALPN_PROTOS.invokeExact(ssl, protos, n);
        } catch (Throwable t) {
            throw failed("SSL_set_alpn_protos", t);
        }
    }

    /** {@return the protocol ALPN selected, "" if none} */
    public static String alpnSelected(long ssl) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocate(ValueLayout.JAVA_LONG);
            MemorySegment length = arena.allocate(ValueLayout.JAVA_INT);
            SSL_GET0_ALPN_SELECTED.invokeExact(ssl, data.address(), length.address());
            long p = data.get(ValueLayout.JAVA_LONG, 0);
            int n = length.get(ValueLayout.JAVA_INT, 0);
            return p == 0 || n == 0 ? "" : new String(at(p, n).toArray(ValueLayout.JAVA_BYTE),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (Throwable t) {
            throw failed("SSL_get0_alpn_selected", t);
        }
    }

    /** {@return 1 once the certificate must name {@code host} (a C string), else 0} */
    public static int set1Host(long ssl, long host) {
        try {
            return (int) SSL_SET1_HOST.invokeExact(ssl, host);
        } catch (Throwable t) {
            throw failed("SSL_set1_host", t);
        }
    }

    /** {@code SSL_set_hostflags}. */
    public static void setHostFlags(long ssl, int flags) {
        try {
            SSL_SET_HOSTFLAGS.invokeExact(ssl, flags);
        } catch (Throwable t) {
            throw failed("SSL_set_hostflags", t);
        }
    }

    /** {@return the connection's verification parameters} */
    public static long param(long ssl) {
        try {
            return (long) SSL_GET0_PARAM.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_get0_param", t);
        }
    }

    /** {@return {@code SSL_get_verify_result}: {@link #X509_V_OK} or the first verification error} */
    public static long verifyResult(long ssl) {
        try {
            return (long) SSL_GET_VERIFY_RESULT.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_get_verify_result", t);
        }
    }

    /** {@return the protocol's name, e.g. {@code TLSv1.3}} */
    public static String protocol(long ssl) {
        try {
            return string((long) SSL_GET_VERSION.invokeExact(ssl));
        } catch (Throwable t) {
            throw failed("SSL_get_version", t);
        }
    }

    /** {@return the cipher suite's RFC name, e.g. {@code TLS_AES_256_GCM_SHA384}, or null before one is agreed} */
    public static String cipherSuite(long ssl) {
        try {
            long cipher = (long) SSL_GET_CURRENT_CIPHER.invokeExact(ssl);
            return cipher == 0 ? null : string((long) SSL_CIPHER_STANDARD_NAME.invokeExact(cipher));
        } catch (Throwable t) {
            throw failed("SSL_get_current_cipher", t);
        }
    }

    /** {@return the RFC names of the cipher suites the connection may agree on} */
    public static List<String> cipherSuites(long ssl) {
        try {
            long stack = (long) SSL_GET_CIPHERS.invokeExact(ssl);
            List<String> names = new ArrayList<>();
            for (int i = 0, n = stackSize(stack); i < n; i++) {
                names.add(string((long) SSL_CIPHER_STANDARD_NAME.invokeExact(stackValue(stack, i))));
            }
            return names;
        } catch (Throwable t) {
            throw failed("SSL_get_ciphers", t);
        }
    }

    /** {@return 1 once the TLS 1.2 cipher list is {@code list} (a C string, OpenSSL's names), else 0} */
    public static int setCipherList(long ssl, long list) {
        try {
            return (int) SSL_SET_CIPHER_LIST.invokeExact(ssl, list);
        } catch (Throwable t) {
            throw failed("SSL_set_cipher_list", t);
        }
    }

    /** {@return 1 once the TLS 1.3 suites are {@code list} (a C string), else 0} */
    public static int setCipherSuites(long ssl, long list) {
        try {
            return (int) SSL_SET_CIPHERSUITES.invokeExact(ssl, list);
        } catch (Throwable t) {
            throw failed("SSL_set_ciphersuites", t);
        }
    }

    /** {@return OpenSSL's name of the RFC-named cipher suite {@code rfcName} (a C string), or null} */
    public static String opensslCipherName(long rfcName) {
        try {
            String name = string((long) OPENSSL_CIPHER_NAME.invokeExact(rfcName));
            return "(NONE)".equals(name) ? null : name;
        } catch (Throwable t) {
            throw failed("OPENSSL_cipher_name", t);
        }
    }

    /** {@return the peer's certificate with a reference of its own (free it), or 0} */
    public static long peerCertificate(long ssl) {
        try {
            return (long) SSL_GET1_PEER_CERTIFICATE.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_get1_peer_certificate", t);
        }
    }

    /** {@return the peer's chain, the connection's own (a client's starts with the server's certificate), or 0} */
    public static long peerCertChain(long ssl) {
        try {
            return (long) SSL_GET_PEER_CERT_CHAIN.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_get_peer_cert_chain", t);
        }
    }

    /** {@code SSL_set_verify}. */
    public static void setVerify(long ssl, int mode, long callback) {
        try {
            SSL_SET_VERIFY.invokeExact(ssl, mode, callback);
        } catch (Throwable t) {
            throw failed("SSL_set_verify", t);
        }
    }

    /** {@return the plaintext bytes decrypted and not yet read} */
    public static int pending(long ssl) {
        try {
            return (int) SSL_PENDING.invokeExact(ssl);
        } catch (Throwable t) {
            throw failed("SSL_pending", t);
        }
    }
}
