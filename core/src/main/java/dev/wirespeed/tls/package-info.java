/**
 * TLS for the event loop's connections: {@link dev.wirespeed.tls.TlsSettings} (identity, trust,
 * client authentication, ALPN, protocols, timeouts) and the engines that carry it, through
 * {@link dev.wirespeed.tls.TlsEngineFactory}: the JDK's {@code SSLEngine} here, OpenSSL in the native
 * module.
 */
package dev.wirespeed.tls;
