package dev.wirespeed.tls;

import javax.net.ssl.SSLEngine;

/**
 * The loaded settings of one server or client ({@link TlsEngineFactory#context}), making an engine per
 * connection.
 *
 * <p>Thread safety: safe for concurrent use; each engine it makes is used by one loop thread.
 */
public interface TlsContext {
    /**
     * Makes the engine of one connection, set up as the settings say (role, protocols, client
     * authentication, ALPN; on a client, the server name sent and checked), before its handshake.
     *
     * @param peerHost the peer's host name, for SNI and hostname verification on a client; its address on a
     *     server, or null
     * @param peerPort the peer's port, or -1
     * @return a new engine
     */
    SSLEngine newEngine(String peerHost, int peerPort);

    /**
     * {@return whether the engines work best on direct buffers} (an engine that hands their memory to
     * native code) or on heap buffers (the JDK's, whose ciphers copy a direct buffer into an array first);
     * the loop gives each engine the kind it prefers
     */
    default boolean directBuffers() {
        return false;
    }
}
