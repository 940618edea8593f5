/**
 * Not API (the module does not export it): OpenSSL 3 through FFM. {@link dev.wirespeed.linux.internal.ssl.LibSsl}
 * finds {@code libssl.so.3} and {@code libcrypto.so.3} at run time and links their functions;
 * {@link dev.wirespeed.linux.internal.ssl.SslContext} is one {@code SSL_CTX} made from
 * {@link dev.wirespeed.tls.TlsSettings}; {@link dev.wirespeed.linux.internal.ssl.OpenSslEngine} is one
 * {@code SSL} behind the JDK's {@link javax.net.ssl.SSLEngine} shape, over two memory BIOs.
 */
package dev.wirespeed.linux.internal.ssl;
