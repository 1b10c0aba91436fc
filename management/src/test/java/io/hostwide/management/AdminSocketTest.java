package io.hostwide.management;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The admin socket grants control of the server, so it lives in a directory only the serve user may use (issue 12:
 * the old default, a predictable name in the shared temp directory, let any local user squat it and stop serve).
 */
class AdminSocketTest {

    private static final String ME = System.getProperty("user.name");

    @Test
    void theDefaultSocketIsInAPerUserDirectory() {
        Path p = AdminSocket.defaultPath(3260);
        assertThat(p.getFileName()).hasToString("hostwide-3260.sock");
        String xdg = System.getenv("XDG_RUNTIME_DIR");
        boolean run = ME.equals("root") && Files.isWritable(Path.of("/run"));
        assertThat(p.getParent()).isEqualTo(xdg != null && !xdg.isEmpty() ? Path.of(xdg, "hostwide")
                : run ? Path.of("/run/hostwide") : Path.of(System.getProperty("java.io.tmpdir"), "hostwide-" + ME));
        assertThat(p.getParent()).isNotEqualTo(Path.of(System.getProperty("java.io.tmpdir")));
    }

    @Test
    void aMissingDirectoryIsCreatedPrivate(@TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("hostwide-x");
        AdminSocket.preparePrivateDirectory(dir);
        assertThat(Files.getPosixFilePermissions(dir)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void anOwnDirectoryThatIsTooOpenIsNarrowed(@TempDir Path tmp) throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        AdminSocket.preparePrivateDirectory(dir);
        assertThat(Files.getPosixFilePermissions(dir)).isEqualTo(PosixFilePermissions.fromString("rwx------"));
    }

    @Test
    void aLinkInPlaceOfTheDirectoryIsRefused(@TempDir Path tmp) throws IOException {
        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path link = Files.createSymbolicLink(tmp.resolve("hostwide-x"), elsewhere);
        assertThatThrownBy(() -> AdminSocket.preparePrivateDirectory(link))
                .hasMessage("admin socket directory " + link + " is not a directory (a link or a file is there); "
                        + "remove it, or pass --admin-socket PATH");
    }

    @Test
    void aDirectoryOfAnotherUserIsRefused(@TempDir Path tmp) throws IOException {
        Path dir;
        if (ME.equals("root")) { // root can hand a directory to someone else
            dir = Files.createDirectory(tmp.resolve("theirs"));
            Files.setOwner(dir, nobody(dir));
        } else {
            dir = Path.of("/"); // owned by root, not by this user
        }
        String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
        Assumptions.assumeFalse(owner.equals(ME), "no directory of another user available");
        assertThatThrownBy(() -> AdminSocket.preparePrivateDirectory(dir))
                .hasMessage("admin socket directory " + dir + " belongs to " + owner + ", not " + ME
                        + "; remove it, or pass --admin-socket PATH");
    }

    /** A squatter's dead socket at an explicit path is not silently taken over when it is someone else's. */
    @Test
    void aSocketFileOfAnotherUserIsRefused(@TempDir Path tmp) throws IOException {
        Assumptions.assumeTrue(ME.equals("root"), "needs root to make a file of another user");
        Path sock = tmp.resolve("admin.sock");
        AdminSocket.open(sock, c -> Map.of()).close(); // leaves nothing behind
        Files.createFile(sock);
        Files.setOwner(sock, nobody(sock));
        assertThatThrownBy(() -> AdminSocket.open(sock, c -> Map.of()))
                .hasMessageContaining(sock + " exists and belongs to nobody");
        assertThat(sock).exists();
    }

    @Test
    void theSocketItselfIsOwnerOnly(@TempDir Path tmp) throws IOException {
        Path sock = tmp.resolve("admin.sock");
        try (AdminSocket s = AdminSocket.open(sock, c -> Map.of("ok", true))) {
            assertThat(Files.getPosixFilePermissions(sock)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(AdminSocket.request(sock, "status")).contains("\"ok\" : true");
        }
        assertThat(sock).doesNotExist();
    }

    private static UserPrincipal nobody(Path p) throws IOException {
        return p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
    }
}
