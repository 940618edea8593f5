/**
 * What a platform module plugs into the core: {@link dev.wirespeed.io.spi.FileReadProvider}, a
 * faster way to read whole files, found with {@link java.util.ServiceLoader}.
 */
package dev.wirespeed.io.spi;
