#pragma once

#include "hosts/hostconfig.h"

#include <QString>

#include <memory>

class Host;
class SshPrompter;

// The host a command runs on, by its name in the hosts file ('local' is built in). A local host gets `jobs`
// slots; other kinds keep their configured slot count. An SSH host asks `prompter` (default: the terminal's).
class HostChoice
{
public:
    static Host *create(const QString &name, int jobs, HostConfig &config, QString &error,
                        std::shared_ptr<SshPrompter> prompter = {});
};
