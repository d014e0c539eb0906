#include "hostchoice.h"

#include "clisshprompter.h"
#include "hosts/host.h"
#include "hosts/hostfactory.h"
#include "hosts/hostregistry.h"

Host *HostChoice::create(const QString &name, int jobs, HostConfig &config, QString &error,
                         std::shared_ptr<SshPrompter> prompter)
{
    HostRegistry registry;
    if (!registry.load(error))
        return nullptr;
    if (!registry.find(name, config)) {
        error = QStringLiteral("no host named '%1'; see 'accelopt hosts list'").arg(name);
        return nullptr;
    }
    if (config.kind == HostConfig::Kind::Local) {
        if (jobs < 1 || jobs > 64) {
            error = QStringLiteral("--jobs must be between 1 and 64");
            return nullptr;
        }
        config.slotCount = jobs;
    }
    Host *host =
        HostFactory::create(config, prompter ? std::move(prompter) : std::make_shared<CliSshPrompter>());
    if (!host)
        error = QStringLiteral("host '%1' has a kind this build cannot reach").arg(name);
    return host;
}
