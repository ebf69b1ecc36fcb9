terraform {
  required_version = ">= 1.5"

  required_providers {
    alicloud = {
      source  = "aliyun/alicloud"
      # role_name and assume_role_policy_document of alicloud_ram_role exist from 1.252.0 on
      version = ">= 1.252.0"
    }
  }
}

provider "alicloud" {
  region = var.region
}
