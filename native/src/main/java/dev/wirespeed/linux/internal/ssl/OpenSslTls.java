package dev.wirespeed.linux.internal.ssl;

import dev.wirespeed.tls.TlsContext;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.security.GeneralSecurityException;

/** The OpenSSL engine factory: an {@link SslContext} per {@link #context} call. */
public final class OpenSslTls implements TlsEngineFactory {
    /** The one instance. */
    public static final OpenSslTls INSTANCE = new OpenSslTls();

    private OpenSslTls() {
    }

    @Override
    public String name() {
        return "openssl";
    }

    @Override
    public TlsContext context(TlsSettings settings, boolean client) throws GeneralSecurityException {
        return new SslContext(settings, client);
    }

    @Override
    public String toString() {
        return "openssl (" + LibSsl.version() + ")";
    }
}
