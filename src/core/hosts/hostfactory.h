#pragma once

#include "hosts/hostconfig.h"

#include <memory>

class Host;
class QObject;
class SshPrompter;

// Builds the right Host for a configuration, so callers (CLI, workbench) never branch on the kind themselves.
class HostFactory
{
public:
    static Host *create(const HostConfig &config, std::shared_ptr<SshPrompter> prompter = {},
                        QObject *parent = nullptr);
};
