#include "hosts/hostfactory.h"

#include "common/datapaths.h"
#include "hosts/localhost.h"
#include "hosts/slurmhost.h"
#include "hosts/sshhost.h"

Host *HostFactory::create(const HostConfig &config, std::shared_ptr<SshPrompter> prompter, QObject *parent)
{
    switch (config.kind) {
    case HostConfig::Kind::Local:
        return new LocalHost(config, DataPaths::nkibenchDir(), parent);
    case HostConfig::Kind::Ssh:
        return new SshHost(config, DataPaths::nkibenchDir(), std::move(prompter), parent);
    case HostConfig::Kind::Slurm:
        return new SlurmHost(config, DataPaths::nkibenchDir(), std::move(prompter), parent);
    }
    return nullptr;
}
