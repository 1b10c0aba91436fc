/** The Backstore SPI under a device and its implementations: sparse RAM, file, null. */
package io.hostwide.tcm.backstore;
