# METADATA
# title: User pack aggregation
# description: |
#   Collects the hits of user packs in package rivumi.user. The engine adds
#   rules to this package for each user package below rivumi.user it loads.
package rivumi.main.user

floor contains h if some h in data.rivumi.user.floor

deny contains h if some h in data.rivumi.user.deny

ask contains h if some h in data.rivumi.user.ask

allow contains h if some h in data.rivumi.user.allow
