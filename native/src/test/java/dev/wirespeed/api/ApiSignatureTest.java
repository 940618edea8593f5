package dev.wirespeed.api;

import dev.wirespeed.testing.ApiSignatures;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The public API of wirespeed-native is the one in {@code api/wirespeed-native.api}: a change to it is a visible diff in
 * review. See {@link ApiSignatures} for how to accept one.
 */
class ApiSignatureTest {
    @Test
    void theExportedApiMatchesItsSignatureFile() throws IOException {
        ApiSignatures.check(Path.of("target/classes"), Path.of("api/wirespeed-native.api"));
    }
}
