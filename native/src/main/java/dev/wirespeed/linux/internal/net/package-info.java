/**
 * Not API (the module does not export it): the descriptors of connected and listening sockets and
 * the calls on them, behind {@code NativeSocket}, {@code NativeServerSocket} and the loops' endpoints.
 */
package dev.wirespeed.linux.internal.net;
