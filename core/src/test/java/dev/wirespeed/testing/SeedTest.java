package dev.wirespeed.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SeedTest {

    @Test
    void theSeedPropertyReplaysARun() {
        String before = System.getProperty(Seed.PROPERTY);
        try {
            System.setProperty(Seed.PROPERTY, "-7351");
            assertEquals(-7351, Seed.fromPropertyOrNew().value());
            assertEquals("-7351", Seed.fromPropertyOrNew().toString());
        } finally {
            if (before == null) {
                System.clearProperty(Seed.PROPERTY);
            } else {
                System.setProperty(Seed.PROPERTY, before);
            }
        }
    }
}
