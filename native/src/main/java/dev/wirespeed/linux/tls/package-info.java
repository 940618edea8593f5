/**
 * TLS through OpenSSL 3, called through FFM: {@link dev.wirespeed.linux.tls.OpenSsl#engine()} is a
 * {@link dev.wirespeed.tls.TlsEngineFactory} for {@link dev.wirespeed.tls.TlsSettings.Builder#engine},
 * beside the JDK's own. The system's {@code libssl.so.3} is found at run time; nothing native is shipped.
 */
package dev.wirespeed.linux.tls;
