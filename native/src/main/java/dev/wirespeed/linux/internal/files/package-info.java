/**
 * Not API (the module does not export it): the provider through which
 * {@code ReadAll.readAll(Path)} reads files straight into arrays on Linux.
 */
package dev.wirespeed.linux.internal.files;
