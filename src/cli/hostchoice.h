#pragma once

#include "hosts/hostconfig.h"

#include <QString>

class Host;

// The host a command runs on, by its name in the hosts file ('local' is built in). A local host gets `jobs`
// slots; other kinds keep their configured slot count.
class HostChoice
{
public:
    static Host *create(const QString &name, int jobs, HostConfig &config, QString &error);
};
