#pragma once

#include "hosts/hostconfig.h"
#include "sshdfixture.h"

// The host settings that reach an SshdFixture: its key, its known_hosts, never the user's ssh config, and a
// deploy folder of its own. Header-only: the test support library does not link the core.
inline HostConfig loopbackHost(const SshdFixture &sshd, int slotCount = 1)
{
    HostConfig c;
    c.name = QStringLiteral("loopback");
    c.kind = HostConfig::Kind::Ssh;
    c.sshHost = QStringLiteral("127.0.0.1");
    c.port = sshd.port();
    c.user = SshdFixture::userName();
    c.identityFile = sshd.clientKey();
    c.knownHostsFile = sshd.knownHosts();
    c.sshConfigFile = sshd.path(QStringLiteral("none"));
    c.deployRoot = sshd.path(QStringLiteral("remote"));
    c.python = QStringLiteral("/usr/bin/python3");
    c.slotCount = slotCount;
    return c;
}
